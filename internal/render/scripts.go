package render

// Shell scripts run by calico-node's helper containers. They are written for the busybox/sh and
// iptables binaries shipped in the calico/node image.

// cleanupRoutesScript removes the routes bird installed while the overlay was on, so the
// infrastructure's routes take over when it is switched off.
const cleanupRoutesScript = `set -e
ip route show proto bird | while read -r route; do
  ip route del $route || true
done
if command -v ip >/dev/null && ip -6 route show proto bird >/dev/null 2>&1; then
  ip -6 route show proto bird | while read -r route; do
    ip -6 route del $route || true
  done
fi
`

// logMTUIssuesScript logs packets that hit a too small MTU (ICMP fragmentation-needed and ICMPv6
// packet-too-big), so MTU problems show up in the node's kernel log. It picks the iptables
// flavour kubelet uses and only inserts rules that are not there yet.
const logMTUIssuesScript = `set -e
mode=legacy
if iptables-nft-save -t mangle 2>/dev/null | grep -qE 'KUBE-IPTABLES-HINT|KUBE-KUBELET-CANARY'; then
  mode=nft
fi
ensure() {
  bin="$1"; shift
  "$bin" -t mangle -C OUTPUT "$@" 2>/dev/null || "$bin" -t mangle -I OUTPUT 1 "$@"
}
ensure "iptables-$mode" -p icmp --icmp-type fragmentation-needed -j LOG --log-prefix "PACKET-TOO-BIG "
ensure "ip6tables-$mode" -p icmpv6 --icmpv6-type packet-too-big -j LOG --log-prefix "PACKET-TOO-BIG " || true
`

// addSNATScript masquerades pod traffic to the node's upstream DNS servers when the overlay is
// off, because the infrastructure would otherwise drop replies to pod source addresses.
const addSNATScript = `trap 'exit 0' TERM
sleep 15
case "$POD_CIDR" in *:*) family=6; suffix=128;; *) family=4; suffix=32;; esac
while true; do
  mode=legacy
  if iptables-nft-save -t nat 2>/dev/null | grep -q 'KUBE-'; then mode=nft; fi
  bin="iptables-$mode"
  if [ "$family" = 6 ]; then bin="ip6tables-$mode"; fi
  for ns in $(awk '/^nameserver/ {print $2}' /etc/resolv.conf); do
    case "$ns" in *:*) nsfamily=6;; *) nsfamily=4;; esac
    [ "$nsfamily" = "$family" ] || continue
    rule="-s $POD_CIDR -d $ns/$suffix ! -o cali+ -m comment --comment calico-masquerade-non-cluster -j MASQUERADE"
    $bin -w -t nat -C POSTROUTING $rule 2>/dev/null || $bin -w -t nat -I POSTROUTING 1 $rule
  done
  sleep 60 &
  wait $!
done
`

// ensurerScript clears the node's NetworkUnavailable condition once more after calico-node's own
// start-up, for the case where something set it again after Calico had cleared it (a race during
// node start). Calico v3.31 clears the condition only in -complete-startup (-startup no longer
// does): it waits up to five minutes for Felix to be ready (FELIX_HEALTHENABLED), patches the
// condition and then blocks; should it fail, it is retried a minute later.
const ensurerScript = `trap 'exit 0' TERM
sleep 30
until calico-node -complete-startup; do
  sleep 60 & wait $!
done
`

// CNIPluginsSourceDir is where the cni-plugins image (Dockerfile target cni-plugins) holds the
// plugins, as the reference's image does; CNIPluginsHostDir is the host's /opt/cni/bin as the
// multus DaemonSet mounts it.
const (
	CNIPluginsSourceDir = "/usr/src/cni/bin"
	CNIPluginsHostDir   = "/host/opt/cni/bin"
)

// installCNIPluginsScript is multus' install-cni-plugins init container: it copies every regular
// file directly in CNIPluginsSourceDir to the host, except host-local, portmap, loopback and tuning,
// which Calico's install-cni installs in its own version. Each file is copied next to its target
// and renamed over it, so kubelet never executes a half-written plugin and a busy binary is
// replaced, not rewritten. It fails when the image has no plugins (a wrong image would otherwise
// look like success).
const installCNIPluginsScript = `set -eu
src=` + CNIPluginsSourceDir + `
dst=` + CNIPluginsHostDir + `
n=0
for f in "$src"/*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  name="${f##*/}"
  case "$name" in host-local|portmap|loopback|tuning) continue ;; esac
  cp "$f" "$dst/.$name.tmp"
  chmod 0755 "$dst/.$name.tmp"
  mv -f "$dst/.$name.tmp" "$dst/$name"
  n=$((n+1))
done
if [ "$n" -eq 0 ]; then
  echo "install-cni-plugins: no plugins in $src" >&2
  exit 1
fi
echo "install-cni-plugins: installed $n plugins into $dst"
`
