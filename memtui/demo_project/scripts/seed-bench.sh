#!/bin/sh
# Seed the bench instance (1.8 M blobs).
set -eu
