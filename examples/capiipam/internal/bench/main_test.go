package bench

import (
	"os"
	"testing"

	"github.com/vmnetkit/vmnetkit/examples/capiipam/internal/capiipamtest"
)

func TestMain(m *testing.M) {
	os.Exit(capiipamtest.Main(m))
}
