package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"strings"
)

// geminiPart is one part of a Gemini content: text, a function call or a
// function's response.
type geminiPart struct {
	Text         string `json:"text,omitempty"`
	Thought      bool   `json:"thought,omitempty"`
	FunctionCall *struct {
		ID   string          `json:"id,omitempty"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string          `json:"id,omitempty"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

// geminiContent is one turn of a Gemini conversation.
type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

// parseGemini returns the parser for a generateContent path; the model and
// whether to stream come from the path, not the body.
func parseGemini(urlPath string, stream bool) func([]byte) (Request, error) {
	model, _, _ := strings.Cut(path.Base(urlPath), ":")
	return func(body []byte) (Request, error) {
		var in struct {
			Contents          []geminiContent `json:"contents"`
			SystemInstruction *geminiContent  `json:"systemInstruction"`
			Tools             []struct {
				FunctionDeclarations []struct {
					Name                 string          `json:"name"`
					Parameters           json.RawMessage `json:"parameters"`
					ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
			GenerationConfig struct {
				ResponseMimeType   string          `json:"responseMimeType"`
				ResponseSchema     json.RawMessage `json:"responseSchema"`
				ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			} `json:"generationConfig"`
		}
		if err := json.Unmarshal(body, &in); err != nil {
			return Request{}, fmt.Errorf("gemini generateContent request: %w", err)
		}
		req := Request{Protocol: "gemini", Model: model, Stream: stream}
		if in.SystemInstruction != nil {
			req.System = geminiText(in.SystemInstruction.Parts)
		}
		if gc := in.GenerationConfig; gc.ResponseMimeType == "application/json" {
			req.JSONOnly, req.Schema = true, gc.ResponseJSONSchema
			if len(req.Schema) == 0 {
				req.Schema = gc.ResponseSchema
			}
		}
		for _, t := range in.Tools {
			for _, f := range t.FunctionDeclarations {
				schema := f.ParametersJSONSchema
				if len(schema) == 0 {
					schema = f.Parameters
				}
				req.Tools = append(req.Tools, Tool{Name: f.Name, Schema: schema})
			}
		}
		for _, c := range in.Contents {
			msg := Msg{Role: "user", Text: geminiText(c.Parts)}
			if c.Role == "model" {
				msg.Role = "assistant"
			}
			for i, p := range c.Parts {
				if f := p.FunctionCall; f != nil {
					msg.Calls = append(msg.Calls, Call{ID: f.ID, Name: f.Name, Args: f.Args})
				}
				if f := p.FunctionResponse; f != nil {
					id := f.ID
					if id == "" {
						id = fmt.Sprintf("%s#%d", f.Name, i)
					}
					msg.Results = append(msg.Results, Result{CallID: id, Text: string(f.Response)})
				}
			}
			req.Messages = appendMsg(req.Messages, msg)
		}
		return req, nil
	}
}

// geminiText joins the non-thought text parts.
func geminiText(parts []geminiPart) string {
	var out []string
	for _, p := range parts {
		if p.Text != "" && !p.Thought {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// writeGemini answers generateContent, or streamGenerateContent as SSE:
// the text first, then a last chunk with the calls, finishReason and usage.
func writeGemini(w http.ResponseWriter, req Request, a Action, ids *idGen) {
	var calls []map[string]any
	for _, c := range a.Calls {
		calls = append(calls, map[string]any{"functionCall": map[string]any{"name": c.Tool.FullName(), "args": c.Args}})
	}
	u := a.Usage.or()
	usage := map[string]int{"promptTokenCount": u.In, "candidatesTokenCount": u.Out, "totalTokenCount": u.In + u.Out}
	resp := func(parts []map[string]any, finish string) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		r := map[string]any{"candidates": []any{cand}, "modelVersion": req.Model, "responseId": ids.next("fake-")}
		if finish != "" {
			cand["finishReason"] = finish
			r["usageMetadata"] = usage
		}
		return r
	}
	if !req.Stream {
		parts := calls
		if a.Text != "" {
			parts = append([]map[string]any{{"text": a.Text}}, calls...)
		}
		writeJSON(w, resp(parts, "STOP"))
		return
	}
	sse := newSSE(w)
	for _, part := range chunks(a.Text) {
		if part != "" {
			sse.event("", resp([]map[string]any{{"text": part}}, ""))
		}
	}
	last := calls
	if len(last) == 0 {
		last = []map[string]any{{"text": ""}}
	}
	sse.event("", resp(last, "STOP"))
}
