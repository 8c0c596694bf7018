package pii_test

import (
	"fmt"

	"github.com/ramabana/ramabana-mcp/host/internal/pii"
)

func ExampleRedact() {
	out, findings := pii.Redact("12|a3f9|OWNER = \"ann.lee@initech.io\"  # v2.10.4, call +1 415-555-0100\n")
	fmt.Print(out)
	fmt.Println(len(findings), findings[0].Kind, findings[1].Kind)
	// Output:
	// 12|a3f9|OWNER = "[REDACTED:email]"  # v2.10.4, call [REDACTED:phone]
	// 2 email phone
}
