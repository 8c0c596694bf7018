package notebook

// Exported for the external tests.
var (
	Canonical = canonical
	RunPython = runPython
)
