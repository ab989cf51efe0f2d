// Writes small Go profiles for tconv's pprof reader tests: a CPU profile whose samples carry
// labels (runtime/pprof.Do) and inlined frames, and a heap profile (four sample types, a
// numeric "bytes" label). How the committed ones were made:
//   go build -trimpath -o /opt/example/profdemo gen_go_profiles.go
//   /opt/example/profdemo go-cpu-labels.pb.gz go-heap.pb.gz
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte
var acc uint64

func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

func spin(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			acc = mix(acc)
		}
	}
}

func alloc(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 4096+i%7*1024)
	}
}

func main() {
	cpu, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(cpu)
	ctx := context.Background()
	pprof.Do(ctx, pprof.Labels("worker", "alpha"), func(context.Context) { spin(300 * time.Millisecond) })
	pprof.Do(ctx, pprof.Labels("worker", "beta", "phase", "load"), func(context.Context) { spin(200 * time.Millisecond) })
	spin(100 * time.Millisecond)
	pprof.StopCPUProfile()
	cpu.Close()

	runtime.MemProfileRate = 4096
	alloc(2000)
	keep := make([][]byte, 0, 100)
	for i := 0; i < 100; i++ {
		keep = append(keep, make([]byte, 65536))
	}
	runtime.GC()
	heap, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(heap)
	heap.Close()
	_ = keep
}
