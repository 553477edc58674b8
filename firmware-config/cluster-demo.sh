#!/usr/bin/env bash
# Three nodes on 127.0.0.1, as at the village: the clerk's node and the kiosk
# node at village hall, the backup node in the second building. Used by
# `make cluster`. Kiosks on http://127.0.0.1:8081-8083, the clerk's office
# and the API on https://127.0.0.1:8441-8443, peer ports 9081-9083 (HTTPS,
# mutual TLS). Ctrl-C stops all three. KIOSK_BASE, STAFF_BASE and
# PEER_BASE move the three ranges (node i listens on BASE+i).
#   firmware-config/cluster-demo.sh BINARY DATA_DIR
set -euo pipefail
bin=${1:?binary}
dir=${2:?data folder}
kiosk_base=${KIOSK_BASE:-8080}
staff_base=${STAFF_BASE:-8440}
peer_base=${PEER_BASE:-9080}
mkdir -p "$dir"
ids=(hall-clerk hall-kiosk annex-backup)
kiosk() { echo $((kiosk_base + $1 + 1)); }
staff() { echo $((staff_base + $1 + 1)); }
peer() { echo "127.0.0.1:$((peer_base + $1 + 1))"; }

wait_up() {
  # A node answers /healthz once it serves: 200, or 503 while it waits for
  # its peers (a restarted cluster's first node has no quorum alone).
  for _ in $(seq 100); do
    case $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz" || true) in
      200 | 503) return 0 ;;
    esac
    sleep 0.1
  done
  echo "node on :$1 did not start; see $dir/${ids[$2]}.log" >&2
  return 1
}

trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT INT TERM

if [ ! -f "$dir/${ids[0]}/node.json" ]; then
  "$bin" init --data "$dir/${ids[0]}" --node-id "${ids[0]}" --peer "$(peer 0)"
fi
"$bin" serve --data "$dir/${ids[0]}" --http "127.0.0.1:$(kiosk 0)" --https "127.0.0.1:$(staff 0)" --demo >"$dir/${ids[0]}.log" 2>&1 &
wait_up "$(kiosk 0)" 0

for i in 1 2; do
  id=${ids[$i]}
  if [ ! -f "$dir/$id/node.json" ]; then
    role=kiosk extra=()
    [ "$id" = annex-backup ] && role=backup extra=(--avoid-leadership)
    "$bin" cert issue --data "$dir/${ids[0]}" --node-id "$id" --role "$role" --out "$dir/$id.bundle"
    "$bin" join --data "$dir/$id" --bundle "$dir/$id.bundle" --leader "$(peer 0)" --peer "$(peer "$i")" \
      --token-file "$dir/${ids[0]}/operator.token" "${extra[@]}"
    rm -f "$dir/$id.bundle" "$dir/$id.bundle.backup-key"
  fi
  "$bin" serve --data "$dir/$id" --http "127.0.0.1:$(kiosk "$i")" --https "127.0.0.1:$(staff "$i")" >"$dir/$id.log" 2>&1 &
  wait_up "$(kiosk "$i")" "$i"
  # serve joins the cluster through the first node; wait until it is in.
  for _ in $(seq 100); do
    curl -sS "http://127.0.0.1:$(kiosk "$i")/healthz" | grep -q '"raft_state":"\(Follower\|Leader\)"' && break
    sleep 0.1
  done
done

token=$(cat "$dir/${ids[0]}/operator.token")
echo
echo "three nodes running; logs in $dir/*.log"
for i in 0 1 2; do echo "  ${ids[$i]}: kiosk http://127.0.0.1:$(kiosk "$i")/  peer $(peer "$i")"; done
echo "the clerk's office: https://127.0.0.1:$(staff 0)/staff/ (trust $dir/${ids[0]}/pki/ca.crt)"
echo "cluster status: curl --cacert $dir/${ids[0]}/pki/ca.crt -H 'Authorization: Bearer $token' https://127.0.0.1:$(staff 0)/api/v1/cluster"
echo "Ctrl-C stops all three."
wait
