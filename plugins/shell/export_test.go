package shell

// RemoveTempBase removes the commands' temporary base folder, which a test
// process, exiting without sdk.Exit, would leave behind.
var RemoveTempBase = removeTempBase
