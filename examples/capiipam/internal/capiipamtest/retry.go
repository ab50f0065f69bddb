package capiipamtest

import (
	"errors"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// RetryFor bounds how long Retry tries one request again.
const RetryFor = 2 * time.Minute

// Transient reports whether err is the API server's failure to answer in
// time, which a loaded machine makes (another API server's etcd writing to
// the same disk, CPU hogs): a timeout (etcd's "request timed out" too),
// too many requests, a server error, or a connection reset or cut short.
// The request may or may not have been carried out. Any other answer is
// the API server's own, and final.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		utilnet.IsConnectionReset(err) || utilnet.IsProbableEOF(err) || utilnet.IsConnectionRefused(err) || utilnet.IsTimeout(err)
}

// Retry calls f until it returns nil or an error that is not Transient,
// for up to RetryFor, backing off from 50ms to 2s, and returns f's last
// error. f gets the number of the try, from 0: a create tried again may
// find the object its earlier try made (AlreadyExists).
func Retry(f func(try int) error) error {
	deadline := time.Now().Add(RetryFor)
	for try, wait := 0, 50*time.Millisecond; ; try, wait = try+1, min(2*wait, 2*time.Second) {
		err := f(try)
		if !Transient(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}
