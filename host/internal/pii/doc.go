// Package pii finds personal and secret data in tool results, for the
// host's --pii off|redact|refuse filter: e-mail addresses, phone numbers,
// payment card numbers and API-key-like secrets, and with --pii-ner
// personal names.
//
// [Find] returns the findings in a text, sorted and non-overlapping, as byte
// offsets; [Redact] replaces each with a placeholder such as
// [REDACTED:email]. [ParseMode] parses the flag; what ModeRefuse withholds,
// and how, is the host's business. A [Filter] carries both flags: its Find,
// Redact and Result add names (kind Name) when its Names is set.
//
// Detection is tuned for the text tools return, mostly source code and
// view_file lines ("12|a3f9|RESERVE = 16_384"), so a false positive (a
// redacted version number) costs more than in prose. Each kind documents its
// rules where it is found; in short:
//
//   - Email: local@domain with a dotted domain ending in letters. Not
//     user@localhost, pkg@v1.2.3, icon@2x.png, SCP-style remotes and URL
//     logins (git@github.com:org/repo, ssh://git@host/...), nor addresses at
//     domains reserved for documentation (example.com, *.test, RFC 2606).
//   - Phone: 9–15 digits written as phone numbers are: +<country code> and
//     groups, North American (415) 555-0100 / 415-555-0100 / 415.555.0100, or
//     national numbers with a trunk 0 (020 7946 0958, 06 12 34 56 78). Not
//     bare integers, dates, times, IP and MAC addresses, versions, ZIP+4
//     codes, or stretches of rows of numbers (hex dumps, value lists).
//   - Card: 13–19 digits (13–16 when not grouped), optionally grouped by
//     spaces or hyphens as cards are printed, passing the Luhn check, with a
//     known issuer prefix; not part of a longer run, a hex string, a decimal
//     or a negative number.
//   - Secret: tokens in well-known formats (AWS, GitHub, Slack, OpenAI and
//     Anthropic, Google, Stripe, JWT), PEM and PGP private key blocks, and
//     long high-entropy values assigned to names like api_key, token or
//     password. Not git object ids, SHA-256 digests, UUIDs, or names and
//     paths.
//   - Name (Filter.Names only): a titled name (Dr. Jane Smith, Sig.ra
//     Bianchi, Herr Müller), a listed first name and a surname that is a
//     listed surname or no common English word (Margaret Thompson, not
//     Jordan River), or capitalised words after a label (Author:,
//     Signed-off-by:, "name":). The lists come from Debian packages
//     (data/names.txt says which). Not months, places, buildings, products
//     or code identifiers; see findNames for the rules. On the held-out
//     half of the labelled fixtures (testdata/names_heldout.txt) its
//     precision is 0.98 and its recall 0.94 (TestNamePrecisionRecall).
//
// Find makes one pass over the text per family (secrets, '@' signs, digit
// spans, PEM markers) and looks closer only at candidates, with a few small
// anchored regular expressions; its cost is linear in the text. Those
// regular expressions, the larger word sets (lazyRegexp, lazySet) and the
// name lists are made at their first use, not at init: every process of the
// server's binary links this package, and most never look for PII.
package pii
