#!/usr/bin/env bash
# Submit command of the cluster-generic profile: run a Snakemake job script as a background
# process in a session of its own (so it survives this shell, and cancel.sh can signal its whole
# process group), and print the job id Snakemake passes to status.sh and cancel.sh.
# State of job <id>: .snakemake/local-cluster/<id>/{pid,exitcode,job.log}.
set -euo pipefail
jobscript="$1"
id="$(date +%s%N)-$$"
dir=".snakemake/local-cluster/$id"
mkdir -p "$dir"
# exitcode is written atomically (tmp + mv) once the job script ends, whatever its status.
setsid nohup bash -c 'bash "$1"; code=$?; echo "$code" > "$2/exitcode.tmp"; mv "$2/exitcode.tmp" "$2/exitcode"' \
    job "$jobscript" "$dir" > "$dir/job.log" 2>&1 < /dev/null &
pid="$!"
echo "$pid" > "$dir/pid"
for _ in $(seq 200); do   # until setsid has made it the leader of its own process group
    pgid="$(ps -o pgid= -p "$pid" 2> /dev/null | tr -d ' ')" || break
    [[ "$pgid" == "$pid" || -z "$pgid" ]] && break
    sleep 0.01
done
echo "$id"
