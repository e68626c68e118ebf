package gc

// Nightly runs start at 03:00 UTC; a run first checks the gc_runs table and the advisory lock.
const nightlyCron = "0 3 * * *"
