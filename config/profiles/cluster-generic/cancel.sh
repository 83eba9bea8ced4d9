#!/usr/bin/env bash
# Cancel command of the cluster-generic profile: SIGTERM the process group (session) of each
# job id of submit.sh; jobs already gone are skipped.
for id in "$@"; do
    pidfile=".snakemake/local-cluster/$id/pid"
    [[ -f "$pidfile" ]] && kill -TERM -- "-$(cat "$pidfile")" 2> /dev/null
done
exit 0
