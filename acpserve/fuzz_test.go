package acpserve

import (
	"encoding/json"
	"testing"
)

// FuzzCheckFrame: any line is either passed (and then the SDK can decode
// it as a request, notification or response) or answered with one valid
// JSON-RPC error line; nothing panics.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}`,
		`{"jsonrpc":"2.0","id":"x","result":null}`,
		`not json`, `[]`, `{}`, `{"id":[1]}`, `{"method":null,"id":1}`, "\t\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		pass, reply := CheckFrame(line)
		if pass {
			if reply != nil {
				t.Fatalf("passed with a reply")
			}
			var m struct {
				ID     *json.RawMessage `json:"id"`
				Method string           `json:"method"`
			}
			if len(trimJSONSpace(line)) > 0 {
				if err := json.Unmarshal(line, &m); err != nil {
					t.Fatalf("passed a line the SDK cannot decode: %v", err)
				}
				if m.Method == "" && m.ID == nil {
					t.Fatalf("passed a message with neither method nor id")
				}
			}
			return
		}
		var r struct {
			JSONRPC string           `json:"jsonrpc"`
			ID      *json.RawMessage `json:"id"`
			Error   *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(reply, &r); err != nil || r.JSONRPC != "2.0" || r.Error == nil || r.Error.Code >= 0 || r.Error.Message == "" {
			t.Fatalf("bad reply %s: %v", reply, err)
		}
		for _, b := range reply {
			if b == '\n' {
				t.Fatalf("reply of more than one line: %q", reply)
			}
		}
	})
}
