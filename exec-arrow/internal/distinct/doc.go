// Package distinct counts the distinct values of a column per group,
// exactly, in memory that its caller accounts and can bound.
//
// A value is its bytes. Its 64-bit hash (the same in every set of the
// process) chooses one of 64 partitions; 32 bits of it, mixed with the
// group, are the tag a slot of that partition's open-addressing table
// holds beside where the pair's record lies, and place the pair's search.
// A (group, value) pair is found only when the tag, the group and the
// bytes are all equal, so two values whose hashes collide are still
// counted twice: the count is exact, the hash only places the values.
// Records (group, length, bytes) lie in 64 KiB blocks that never move, so
// a set grows without copying what it holds. A set's memory is what Bytes
// reports; Spill writes every partition to a temporary file (unlinked as
// soon as it is created, so nothing is left behind if the process dies)
// and frees the memory. When fewer than a third of the pairs given
// before a spill were alike, looking each up saved little: the set then
// writes every later pair as it comes, through a 64 KiB buffer per
// partition, and finds the pairs alike only when it counts. Counts reads
// a spilled set back a partition at a time on each core: the
// partition's records, from its runs and from memory, into one buffer,
// walked once with a table sized for all of them that points into it, so
// nothing is copied or rehashed; counting needs the memory of one
// partition, about a 64th of the pairs, and uses one per core when its
// caller grants it. Sets of several workers merge with Absorb, which
// moves no pair held in memory: the absorbed set's partitions are kept
// beside the absorbing set's, and Counts counts a pair of theirs only
// where no table before theirs holds it alike (a lookup, where moving it
// grew a table and copied its record); the partitions of a set that
// spills are written as runs of their own, their groups renumbered as the
// absorbing set's.
package distinct
