package lsp

// SetBeforeWrite sets a function run before an edit's files are written.
func (p *Plugin) SetBeforeWrite(f func()) { p.g.beforeWrite = f }
