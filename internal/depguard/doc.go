// Package depguard holds the test that keeps the core packages pure: they may
// import only the standard library (minus I/O-, process- and logging-heavy
// packages) and go4.org/netipx, and the root module may require only the
// modules the design allows.
package depguard
