#!/usr/bin/env bash
# Three nodes on 127.0.0.1, as at the village: the clerk's node and the kiosk
# node at village hall, the backup node in the second building. Used by
# `make cluster`. Kiosks on http://127.0.0.1:8081-8083, peer ports
# 9081-9083 (HTTPS, mutual TLS). Ctrl-C stops all three.
#   firmware-config/cluster-demo.sh BINARY DATA_DIR
set -euo pipefail
bin=${1:?binary}
dir=${2:?data folder}
mkdir -p "$dir"
ids=(hall-clerk hall-kiosk annex-backup)

wait_up() {
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "node on :$1 did not start; see $dir/${ids[$2]}.log" >&2
  return 1
}

trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT INT TERM

if [ ! -f "$dir/${ids[0]}/node.json" ]; then
  "$bin" init --data "$dir/${ids[0]}" --node-id "${ids[0]}" --peer 127.0.0.1:9081
fi
"$bin" serve --data "$dir/${ids[0]}" --http 127.0.0.1:8081 --https 127.0.0.1:8441 --demo >"$dir/${ids[0]}.log" 2>&1 &
wait_up 8081 0

for i in 1 2; do
  id=${ids[$i]}
  if [ ! -f "$dir/$id/node.json" ]; then
    role=kiosk extra=()
    [ "$id" = annex-backup ] && role=backup extra=(--avoid-leadership)
    "$bin" cert issue --data "$dir/${ids[0]}" --node-id "$id" --role "$role" --out "$dir/$id.bundle"
    "$bin" join --data "$dir/$id" --bundle "$dir/$id.bundle" --leader 127.0.0.1:9081 --peer "127.0.0.1:908$((i + 1))" \
      --token-file "$dir/${ids[0]}/operator.token" "${extra[@]}"
    rm -f "$dir/$id.bundle" "$dir/$id.bundle.backup-key"
  fi
  "$bin" serve --data "$dir/$id" --http "127.0.0.1:808$((i + 1))" --https "127.0.0.1:844$((i + 1))" >"$dir/$id.log" 2>&1 &
  wait_up "808$((i + 1))" "$i"
  # serve joins the cluster through the first node; wait until it is in.
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:808$((i + 1))/healthz" | grep -q '"raft_state":"Follower"' && break
    sleep 0.1
  done
done

token=$(cat "$dir/${ids[0]}/operator.token")
echo
echo "three nodes running; logs in $dir/*.log"
for i in 0 1 2; do echo "  ${ids[$i]}: kiosk http://127.0.0.1:808$((i + 1))/  peer 127.0.0.1:908$((i + 1))"; done
echo "cluster status: curl -H 'Authorization: Bearer $token' http://127.0.0.1:8081/api/v1/cluster"
echo "Ctrl-C stops all three."
wait
