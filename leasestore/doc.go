// Package leasestore rebuilds a DHCP agent's lease table from an ipam pool
// snapshot and plans the adds, updates and removes between two tables.
package leasestore
