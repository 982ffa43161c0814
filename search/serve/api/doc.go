// Package api is the wire format of the triage server (search/serve) and
// a Go client for it: every request and response body, the session states,
// and Client, which calls the server with them. It is apart from the
// server, as ollama keeps api/ apart from server/, so that a program that
// only talks to a server does not link the server, the policies' engine or
// the model.
//
// Imports: corpus (ids, trees), model/priority (the edge and distribution
// the priority endpoint carries) and policy (for policy.Params only);
// nothing else of triage.
package api
