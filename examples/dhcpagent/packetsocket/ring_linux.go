package packetsocket

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The receive ring (PACKET_RX_RING, TPACKET_V3): the kernel writes frames
// into blocks of a buffer it shares with the process and hands a block
// over when it is full or blockTimeout after it was started. The reader
// then wakes once per block, not once per frame: at 1,000 DHCPv6
// exchanges a second a block carries the SOLICIT and REQUEST of about a
// millisecond, and the thread that serves them sleeps and wakes half as
// often; under a burst a block carries hundreds. The price is latency: a
// message waits for its block, at most two blockTimeouts (the kernel's
// timer closes a block that was current for a whole period), which
// beside a DHCPv6 client's 1 s first retransmission is nothing.
//
// A block closes on the timer however little it holds, so the ring holds
// blockCount blocks of traffic, at most blockSize bytes each: a reader
// that stalls (a pool swap, a GC pause) loses nothing for 256 ms at up to
// about 50 messages a millisecond, 4 MiB in all (the -rcvbuf default of
// the UDP sockets).
const (
	blockSize    = 1 << 14 // a multiple of the page size: about 50 messages
	blockCount   = 256
	frameSize    = 2048 // the kernel's frame accounting unit in V3
	blockTimeout = time.Millisecond
)

// ring is the mapped receive ring and where the reader is in it. One
// goroutine reads it (Socket.mu). It is a TPACKET_V3 ring
// (PACKET_RX_RING) that the kernel hands over a block at a time, when the
// block fills or blockTimeout after it started, so the serving thread
// wakes once per block rather than once per message.
type ring struct {
	mem   []byte
	block int    // the block being read, or waited for
	left  uint32 // frames of the block not read yet; 0: not handed over
	next  uint32 // offset in the block of the next frame
}

// setupRing asks fd's kernel side for the ring and maps it.
func setupRing(fd int) (*ring, error) {
	if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, unix.PACKET_VERSION, unix.TPACKET_V3); err != nil {
		return nil, fmt.Errorf("PACKET_VERSION: %w", err)
	}
	req := unix.TpacketReq3{
		Block_size:     blockSize,
		Block_nr:       blockCount,
		Frame_size:     frameSize,
		Frame_nr:       blockSize / frameSize * blockCount,
		Retire_blk_tov: uint32(blockTimeout / time.Millisecond),
	}
	if err := unix.SetsockoptTpacketReq3(fd, unix.SOL_PACKET, unix.PACKET_RX_RING, &req); err != nil {
		return nil, fmt.Errorf("PACKET_RX_RING: %w", err)
	}
	mem, err := unix.Mmap(fd, 0, blockSize*blockCount, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap of the ring: %w", err)
	}
	return &ring{mem: mem}, nil
}

// header is block i's tpacket_hdr_v1.
func (r *ring) header(i int) *unix.TpacketHdrV1 {
	desc := (*unix.TpacketBlockDesc)(unsafe.Pointer(&r.mem[i*blockSize]))
	return (*unix.TpacketHdrV1)(unsafe.Pointer(&desc.Hdr[0]))
}

// status is the word of block i that says who owns it.
func (r *ring) status(i int) *uint32 { return &r.header(i).Block_status }

// ready reports whether the current block is the process's, and if so
// starts reading it.
func (r *ring) ready() bool {
	if r.left > 0 {
		return true
	}
	if atomic.LoadUint32(r.status(r.block))&unix.TP_STATUS_USER == 0 {
		return false
	}
	hdr := r.header(r.block)
	r.left, r.next = hdr.Num_pkts, hdr.Offset_to_first_pkt
	if r.left == 0 { // an empty block handed over: give it back
		r.release()
		return false
	}
	return true
}

// frame is the next frame of the current block (ready was true): the
// packet from its network header, the link-layer address the kernel put
// after the frame's header, and the frame's tp_status (what it says of
// the checksum: statusCsumNotReady, statusCsumValid). pkt and sa alias
// the ring: copy what you keep before the next call, which may give the
// block back.
func (r *ring) frame() (pkt []byte, sa *unix.RawSockaddrLinklayer, status uint32) {
	base := r.block*blockSize + int(r.next)
	h := (*unix.Tpacket3Hdr)(unsafe.Pointer(&r.mem[base]))
	start := base + int(h.Net)
	pkt = r.mem[start : start+int(h.Snaplen)]
	sa = (*unix.RawSockaddrLinklayer)(unsafe.Pointer(&r.mem[base+tpacketAlign(unix.SizeofTpacket3Hdr)]))
	status = h.Status
	r.next += h.Next_offset
	r.left--
	return pkt, sa, status
}

// done gives the current block back to the kernel once all its frames
// are read (the caller copied the last one).
func (r *ring) done() {
	if r.left == 0 {
		r.release()
	}
}

func (r *ring) release() {
	atomic.StoreUint32(r.status(r.block), unix.TP_STATUS_KERNEL)
	r.block = (r.block + 1) % blockCount
	r.left, r.next = 0, 0
}

func (r *ring) unmap() error { return unix.Munmap(r.mem) }

func tpacketAlign(n int) int {
	return (n + unix.TPACKET_ALIGNMENT - 1) &^ (unix.TPACKET_ALIGNMENT - 1)
}
