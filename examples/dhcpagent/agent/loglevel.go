package agent

// packetLevel is the logr verbosity of the lines the agent logs per
// packet (slog level -1 through logr.FromSlogHandler); what an operator
// acts on is logged at level 0. It equals the commands' debug level
// (examples/internal/command.Debug, the -v=1 flag), which this library
// does not import: a command is built on the library, not the reverse.
const packetLevel = 1
