package todostore

// writeSession writes out, the encoding of next, as session id's file: the
// one durable write of a change. It keeps a copy of next as the cache's
// decoded session (hash is its list's, hashAt its states at each item,
// items its items' encodings), sharing what did not change with cur, the
// cache's session before (whose items' encodings were prevItems), and
// returns next, the caller's own now.
func (s *Store) writeSession(id string, cur *Session, prevItems [][]byte, next *Session, out encoding, items [][]byte, hash uint64, hashAt []uint64) (*Session, bool, error) {
	f, fid, err := writeLockedPieces(s.Path(id), out.pieces)
	if err != nil {
		s.cache.drop(id)
		return nil, false, err
	}
	if s.AfterWrite != nil {
		s.AfterWrite(id, out.bytes())
	}
	if a := next.Agent; a != nil && (cur.Agent == nil || cur.Agent.Kind != a.Kind || cur.Agent.Session != a.Session) {
		s.linkAgent(id, a)
	}
	var same func(int) bool // the items whose encodings were cur's (prevItems)
	if len(items) == len(next.Todos) && len(prevItems) == len(items) {
		// Both nil when the list took encoding/json's way: compared then.
		same = func(i int) bool {
			return i < len(items) && len(items[i]) > 0 && len(prevItems[i]) > 0 && &items[i][0] == &prevItems[i][0]
		}
	}
	kept := next.cloneSharing(cur, same)
	next.note, next.notes, next.dropped, next.revertOf, next.agentSees = "", nil, nil, 0, false
	// kept is the cache's, never changed again; the file written stays
	// open as the entry's pin (cache.go).
	s.cache.put(id, state{sess: kept, present: true, fid: fid, hash: hash, items: items, hashAt: hashAt}, f)
	return next, true, nil
}
