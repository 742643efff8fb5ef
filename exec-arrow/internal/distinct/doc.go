// Package distinct counts the distinct values of a column per group,
// exactly, in memory that its caller accounts and can bound.
//
// A value is its bytes. Its 64-bit hash (the same in every set of the
// process) chooses one of 64 partitions and a slot in that partition's
// open-addressing table; a (group, value) pair is found only when the
// group, the hash and the bytes are all equal, so two values whose hashes
// collide are still counted twice: the count is exact, the hash only
// places the values. A set's memory is what Bytes reports; Spill writes
// every partition to a temporary file (unlinked as soon as it is created,
// so nothing is left behind if the process dies) and frees the memory;
// Counts then reads the partitions back one at a time, so counting needs
// the memory of one partition, about a 64th of the pairs. Sets of
// several workers merge with Absorb, partition by partition.
package distinct
