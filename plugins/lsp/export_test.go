package lsp

// SetBeforeWrite sets a function run before an edit's files are written.
func (p *Plugin) SetBeforeWrite(f func()) { p.g.beforeWrite = f }

// ServerPids are the process ids of the running language servers.
func (p *Plugin) ServerPids() []int {
	p.g.pool.mu.Lock()
	defer p.g.pool.mu.Unlock()
	var pids []int
	for _, s := range p.g.pool.servers {
		s.mu.Lock()
		if s.client != nil {
			pids = append(pids, s.client.Pid())
		}
		s.mu.Unlock()
	}
	return pids
}

// SetEnviron sets the environment the plugin's servers start from (the
// plugin's own, otherwise), and their private folder.
func (p *Plugin) SetEnviron(env []string, cacheDir string) {
	p.g.environ = func() []string { return env }
	p.g.cacheDir = cacheDir
}
