package host

// OnToolsChanged calls fn after each change of the mounted tools: a plugin
// registered or dropped, a reload, an in-process group added. fn runs on
// the goroutine that made the change and must not block or call back into
// a change (AddGroup, Reload). The returned function unsubscribes.
func (h *Host) OnToolsChanged(fn func()) (stop func()) {
	h.watchMu.Lock()
	defer h.watchMu.Unlock()
	if h.watchers == nil {
		h.watchers = map[int]func(){}
	}
	h.watchID++
	id := h.watchID
	h.watchers[id] = fn
	return func() {
		h.watchMu.Lock()
		defer h.watchMu.Unlock()
		delete(h.watchers, id)
	}
}

// toolsChanged tells the subscribers that the mounted tools changed.
func (h *Host) toolsChanged() {
	h.syncSearch()
	h.watchMu.Lock()
	fns := make([]func(), 0, len(h.watchers))
	for _, fn := range h.watchers {
		fns = append(fns, fn)
	}
	h.watchMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}
