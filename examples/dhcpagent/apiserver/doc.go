// Package apiserver is the agent's side of the Kubernetes API server, and
// the only package of the agent that uses client-go: [IPPoolWatch] loads
// the served IPPool's versions into the agent (through poolsource's
// decoder, as the file mode does), and [DeclineEvents] records the
// DECLINEs the agent accepts as Events on that IPPool. The DHCP server
// (package agent) and the pool sources it shares with the file mode
// (package poolsource) know nothing of Kubernetes clients.
package apiserver
