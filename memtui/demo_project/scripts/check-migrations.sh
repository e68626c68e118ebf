#!/bin/sh
# Refuse duplicate goose numbers (CI job lint).
set -eu
ls migrations | cut -d_ -f1 | sort | uniq -d | grep . && exit 1 || exit 0
