// Package lastgood keeps on local disk the last version of the pool the
// agent loaded from the API server, so that an agent restarted while the
// API server is away still serves: every agent builds the same table from
// the same pool, so a copy of the pool is all a restart needs.
//
// A [Store] is one file in a folder (the command's -state-dir, a volume
// that outlives a container restart). [Store.Save] writes it atomically:
// a temporary file in the same folder, synced, renamed over the old one,
// the folder synced; a crash leaves the old copy or the new one, never a
// mix. The file is a one-line JSON header (format, pool, resourceVersion,
// write time, size and SHA-256 of the data) followed by the pool's JSON as
// the agent loaded it. [Store.Load] checks all of it: a torn or tampered
// file, or one of another pool, is refused with an error that says which,
// and the caller serves nothing from it.
package lastgood
