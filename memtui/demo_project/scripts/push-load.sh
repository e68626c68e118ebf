#!/bin/sh
# Push load against the bench instance while GC runs; prints p99 push latency.
set -eu
echo "pushing to ${REGISTRY:-localhost:5000}"
