#!/bin/bash
# trim_apt_lines.sh LOG > OUT: a fresh run's log without apt's and dpkg's line per package
# (Get:, Selecting, Preparing, Unpacking, Setting up, triggers, the list of new packages),
# the form in which the logs of docs/reports/2026-11-29-fast-feedback-6.md are kept
grep -v -E "^ *[0-9]+ (Get:|Selecting previously|Preparing to unpack|Unpacking|Setting up|Processing triggers|\(Reading database|update-alternatives:|  [a-z0-9.+-]+( [a-z0-9.+-]+)*$)" "$1"
