package rendertest

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// The reference extension's calico-node and typha pod templates, built from the facts
// (docs/reference-extension.md §2.4, §2.7, §3.7 and the differences measured against the reference), for
// the roll counts: render's unit test compares them with calico-pilot's Reference-mode
// templates; the swap-check suite stores them on a real API server and applies calico-pilot's over
// them. A detail the facts do not state is marked "not in the facts" (docs/compatibility.md lists them
// as open questions).

// Opaque values of the reference's render calico-pilot cannot derive: its checksum of calico-config
// (of the rendered template text) and the text of its helper scripts. The test gives them values no
// calico-pilot code produces; the swap-in must keep them.
const (
	RefChecksum      = "reference-checksum-of-its-configmap-template"
	refCleanupRoutes = "# the reference's cleanup-routes script\nip route show proto bird | ..."
	refLogMTU        = "# the reference's log-mtu-issues script\niptables -t mangle ..."
	refAddSNAT       = "# the reference's add-snat-rule-to-upstream-dns script\nsleep 15; while true; do ...; sleep 60; done"
	refHostPathInit  = "calico-node -hostpath-init"
	RefEnsurer       = "# the reference's ensurer\nsleep 30; calico-node -startup; sleep infinity"
)

func refEnv(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }

func refConfigEnv(name, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "calico-config"}, Key: key,
	}}}
}

func refNodeName(name string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}}
}

func refBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func refRequests(cpu, memory resource.Quantity) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: cpu, corev1.ResourceMemory: memory}}
}

var refServicesEndpoint = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
	LocalObjectReference: corev1.LocalObjectReference{Name: "kubernetes-services-endpoint"}, Optional: ptr.To(true),
}}}

func refHostPath(name, path string, t *corev1.HostPathType) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: t}}}
}

// ReferenceNodeTemplate is the reference's calico-node pod template for the chart values o stands for
// (§2.4, §3.7 and the differences measured against the reference; where the facts say nothing, as calico-pilot
// renders it, marked "not in the facts").
func ReferenceNodeTemplate(o *values.Options) corev1.PodTemplateSpec {
	cs := append(refNodeHelpers(o), refNodeContainer(o))
	if o.BirdExporter && !o.NonPrivileged {
		cs = append(cs, refBirdExporter(o))
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1ObjectMeta(map[string]string{
			"k8s-app": "calico-node", "gardener.cloud/role": "system-component", "node.gardener.cloud/critical-component": "true",
			"networking.gardener.cloud/to-public-networks": "allowed", "networking.gardener.cloud/to-apiserver": "allowed",
			"networking.gardener.cloud/to-dns": "allowed",
		}, map[string]string{"checksum/configmap-calico": RefChecksum}),
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"kubernetes.io/os": "linux"}, HostNetwork: true,
			Tolerations: []corev1.Toleration{
				{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}, {Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
			},
			ServiceAccountName:            "calico-node",
			SecurityContext:               &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
			TerminationGracePeriodSeconds: ptr.To[int64](0), PriorityClassName: "system-node-critical",
			InitContainers: refNodeInits(o), Containers: cs, Volumes: refNodeVolumes(o),
		},
	}
}

// refPrivileged is the security context of a privileged container.
func refPrivileged() *corev1.SecurityContext {
	return &corev1.SecurityContext{Privileged: ptr.To(true)}
}

// refXtablesMount is the iptables lock every container that writes rules mounts.
var refXtablesMount = corev1.VolumeMount{Name: "xtables-lock", MountPath: "/run/xtables.lock"}

// refNonPrivilegedMounts are the host directories a non-privileged calico-node mounts whole.
func refNonPrivilegedMounts() []corev1.VolumeMount {
	return []corev1.VolumeMount{{Name: "var-run", MountPath: "/var/run"}, {Name: "var-lib", MountPath: "/var/lib"}, {Name: "var-log", MountPath: "/var/log"}}
}

// refNodeInits are calico-node's init containers, in the template's order.
func refNodeInits(o *values.Options) []corev1.Container {
	var inits []corev1.Container
	if o.OverlayDisabled {
		inits = append(inits, corev1.Container{
			Name: "cleanup-routes", Image: o.Images.CalicoNode, Command: []string{"sh", "-c", refCleanupRoutes},
			SecurityContext: refPrivileged(),
		})
	}
	inits = append(inits, corev1.Container{
		Name: "log-mtu-issues", Image: o.Images.CalicoNode, Command: []string{"/bin/sh", "-c", refLogMTU},
		SecurityContext: refPrivileged(), // no volume mounts (§2.4: not even /run/xtables.lock)
	})
	inits = append(inits, corev1.Container{
		Name: "install-cni", Image: o.Images.CalicoCNI, Command: []string{"/opt/cni/bin/install"},
		EnvFrom: refServicesEndpoint,
		Env: []corev1.EnvVar{
			refEnv("CNI_CONF_NAME", "10-calico.conflist"), refConfigEnv("CNI_NETWORK_CONFIG", "cni_network_config"),
			refNodeName("KUBERNETES_NODE_NAME"), refConfigEnv("CNI_MTU", "veth_mtu"), refEnv("SLEEP", "false"),
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "cni-net-dir", MountPath: "/host/etc/cni/net.d"}, {Name: "cni-bin-dir", MountPath: "/host/secondary-bin-dir"},
		},
		SecurityContext: refPrivileged(),
	})
	if o.EBPF {
		bidi := ptr.To(corev1.MountPropagationBidirectional)
		inits = append(inits, corev1.Container{
			Name: "ebpf-bootstrap", Image: o.Images.CalicoNode, Command: []string{"calico-node", "-init", "-best-effort"},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "sys-fs", MountPath: "/sys/fs", MountPropagation: bidi},
				{Name: "var-run-calico", MountPath: "/var/run/calico", MountPropagation: bidi},
				{Name: "nodeproc", MountPath: "/nodeproc", ReadOnly: true},
			},
			SecurityContext: refPrivileged(),
		})
	}
	if o.NonPrivileged {
		inits = append(inits, corev1.Container{
			Name: "hostpath-init", Image: o.Images.CalicoNode, Command: []string{"sh", "-c", refHostPathInit},
			Env:             []corev1.EnvVar{refEnv("NODE_USER_ID", "999")},
			SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0), AllowPrivilegeEscalation: ptr.To(false)},
			VolumeMounts:    refNonPrivilegedMounts(),
		})
	}
	return inits
}

// refNodeHelpers are the containers before calico-node: the upstream DNS SNAT rule and the
// network-unavailable condition ensurer.
func refNodeHelpers(o *values.Options) []corev1.Container {
	var cs []corev1.Container
	if o.SNATToUpstreamDNS {
		sc := refPrivileged()
		if o.NonPrivileged {
			sc = &corev1.SecurityContext{Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}
		}
		podCIDR := o.PodCIDRv4
		if !o.IPv4 {
			podCIDR = o.PodCIDRv6
		}
		cs = append(cs, corev1.Container{
			Name: "add-snat-rule-to-upstream-dns", Image: o.Images.CalicoNode, Command: []string{"/bin/sh", "-c", refAddSNAT},
			Env: []corev1.EnvVar{refEnv("POD_CIDR", podCIDR)}, SecurityContext: sc, VolumeMounts: []corev1.VolumeMount{refXtablesMount},
		})
	}
	if o.Backend != "none" {
		e := append([]corev1.EnvVar{refConfigEnv("CALICO_NETWORKING_BACKEND", "calico_backend")}, refEnsurerIPEnv(o)...)
		e = append(e, refEnv("NO_DEFAULT_POOLS", "true"), refNodeName("NODENAME"))
		cs = append(cs, corev1.Container{
			Name: "network-unavailable-condition-ensurer", Image: o.Images.CalicoNode, Command: []string{"/bin/sh", "-c", RefEnsurer},
			EnvFrom: refServicesEndpoint, // not in the facts
			Env:     e, SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false)},
		})
	}
	return cs
}

// refEnsurerIPEnv is the ensurer's address autodetection env.
func refEnsurerIPEnv(o *values.Options) []corev1.EnvVar {
	var e []corev1.EnvVar
	if o.IPv4 {
		e = append(e, refEnv("IP", "autodetect"))
		if o.IPv4AutoDetectionMethod != "" {
			e = append(e, refEnv("IP_AUTODETECTION_METHOD", o.IPv4AutoDetectionMethod))
		}
	} else {
		e = append(e, refEnv("IP", "none"))
	}
	if o.IPv6 {
		e = append(e, refEnv("IP6", "autodetect"))
		if o.IPv6AutoDetectionMethod != "" {
			e = append(e, refEnv("IP6_AUTODETECTION_METHOD", o.IPv6AutoDetectionMethod))
		}
	}
	return e
}

// refNodeContainer is the calico-node container.
func refNodeContainer(o *values.Options) corev1.Container {
	live := []string{"/bin/calico-node", "-felix-live"}
	ready := []string{"/bin/calico-node", "-felix-ready"}
	if o.Backend == "bird" {
		live, ready = append(live, "-bird-live"), append(ready, "-bird-ready")
	}
	sc := refPrivileged()
	if o.NonPrivileged {
		sc = &corev1.SecurityContext{
			RunAsUser: ptr.To[int64](999), RunAsGroup: ptr.To[int64](0), Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_RAW", "NET_ADMIN", "NET_BIND_SERVICE"}},
		}
	}
	return corev1.Container{
		Name: "calico-node", Image: o.Images.CalicoNode, EnvFrom: refServicesEndpoint, Env: refNodeEnv(o),
		Ports:     []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9091, Protocol: corev1.ProtocolTCP}},
		Resources: refRequests(o.AutoScaling.NodeRequests.CPU, o.AutoScaling.NodeRequests.Memory),
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/calico-node", "-shutdown"}}}},
		LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: live}},
			PeriodSeconds: 10, InitialDelaySeconds: 10, FailureThreshold: 6, TimeoutSeconds: 10},
		ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: ready}}, PeriodSeconds: 10, TimeoutSeconds: 10},
		SecurityContext: sc, VolumeMounts: refNodeMounts(o),
	}
}

// refNodeEnv is calico-node's env, in the template's order (§2.4 table).
func refNodeEnv(o *values.Options) []corev1.EnvVar {
	var e []corev1.EnvVar
	if o.IPAM.UsePodCIDR {
		e = append(e, refEnv("USE_POD_CIDR", "true"))
	}
	e = append(e, refEnv("FELIX_PROMETHEUSMETRICSENABLED", "true"), refEnv("FELIX_PROMETHEUSMETRICSPORT", "9091"),
		refEnv("DATASTORE_TYPE", "kubernetes"), refConfigEnv("FELIX_TYPHAK8SSERVICENAME", "typha_service_name"),
		refEnv("WAIT_FOR_DATASTORE", "true"), refNodeName("NODENAME"), refConfigEnv("CALICO_NETWORKING_BACKEND", "calico_backend"),
		refEnv("CLUSTER_TYPE", "k8s,bgp"))
	e = append(e, refNodePoolEnv(o)...)
	e = append(e, refEnv("FELIX_IPV6SUPPORT", refBool(o.IPv6)),
		refConfigEnv("FELIX_IPINIPMTU", "veth_mtu"), refConfigEnv("FELIX_VXLANMTU", "veth_mtu"), refConfigEnv("FELIX_WIREGUARDMTU", "veth_mtu"),
		refEnv("CALICO_DISABLE_FILE_LOGGING", "true"), refEnv("FELIX_DEFAULTENDPOINTTOHOSTACTION", "ACCEPT"))
	if o.FelixIPIPEnabled != nil {
		e = append(e, refEnv("FELIX_IPINIPENABLED", refBool(*o.FelixIPIPEnabled)))
	}
	e = append(e, refFelixDataplaneEnv(o)...)
	e = append(e, refEnv("CALICO_MANAGE_CNI", "true"))
	if o.FelixVXLANEnabled {
		if o.IPv4 && o.IPv4Pool.Encapsulation == values.EncapsulationVXLAN {
			e = append(e, refEnv("CALICO_IPV4POOL_IPIP", "Never"))
		}
		e = append(e, refEnv("FELIX_VXLANENABLED", "true"))
	}
	return e
}

// refNodePoolEnv is calico-node's address and default pool env per family.
func refNodePoolEnv(o *values.Options) []corev1.EnvVar {
	var e []corev1.EnvVar
	if o.IPv4 {
		e = append(e, refEnv("IP", "autodetect"), refEnv("CALICO_IPV4POOL_"+string(o.IPv4Pool.Encapsulation), o.IPv4Pool.Mode),
			refEnv("CALICO_IPV4POOL_CIDR", o.PodCIDRv4))
		if o.IPv4AutoDetectionMethod != "" {
			e = append(e, refEnv("IP_AUTODETECTION_METHOD", o.IPv4AutoDetectionMethod))
		}
	} else {
		e = append(e, refEnv("IP", "none"))
	}
	if o.IPv6 {
		e = append(e, refEnv("IP6", "autodetect"), refEnv("CALICO_IPV6POOL_"+string(o.IPv6Pool.Encapsulation), o.IPv6Pool.Mode),
			refEnv("CALICO_IPV6POOL_CIDR", o.PodCIDRv6))
		if o.IPv6AutoDetectionMethod != "" {
			e = append(e, refEnv("IP6_AUTODETECTION_METHOD", o.IPv6AutoDetectionMethod))
		}
		e = append(e, refEnv("CALICO_IPV6POOL_NAT_OUTGOING", refBool(o.IPv6Pool.NATOutgoing)), refEnv("CALICO_ROUTER_ID", "hash"))
	}
	return e
}

// refFelixDataplaneEnv is Felix's eBPF, kube-proxy, NAT, nftables, chain insert and WireGuard env.
func refFelixDataplaneEnv(o *values.Options) []corev1.EnvVar {
	e := []corev1.EnvVar{refEnv("FELIX_BPFENABLED", refBool(o.EBPF))}
	if o.EBPF && o.KubeProxyEnabled {
		e = append(e, refEnv("FELIX_BPFKUBEPROXYHEALTZPORT", "10257"), refEnv("FELIX_BPFKUBEPROXYHEALTHZPORT", "10257"))
	}
	e = append(e, refEnv("FELIX_BPFKUBEPROXYIPTABLESCLEANUPENABLED", refBool(!o.KubeProxyEnabled)),
		refEnv("FELIX_HEALTHENABLED", "true"), refEnv("FELIX_NATPORTRANGE", "32768:65535"))
	if o.ServiceLoopPrevention != "" {
		e = append(e, refEnv("FELIX_SERVICELOOPPREVENTION", o.ServiceLoopPrevention))
	}
	if o.NFTables {
		e = append(e, refEnv("FELIX_NFTABLESMODE", "Enabled"))
	}
	if o.SNATToUpstreamDNS {
		e = append(e, refEnv("FELIX_CHAININSERTMODE", "Append"))
	}
	if o.WireGuard {
		e = append(e, refEnv("FELIX_WIREGUARDENABLED", "true"), refEnv("FELIX_WIREGUARDENABLEDV6", "true"))
	}
	return e
}

// refNodeMounts are calico-node's volume mounts.
func refNodeMounts(o *values.Options) []corev1.VolumeMount {
	mounts := []corev1.VolumeMount{{Name: "cni-net-dir", MountPath: "/host/etc/cni/net.d"}, {Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true}, refXtablesMount}
	if o.NonPrivileged {
		mounts = append(mounts, refNonPrivilegedMounts()...)
	} else {
		mounts = append(mounts, corev1.VolumeMount{Name: "var-run-calico", MountPath: "/var/run/calico"}, corev1.VolumeMount{Name: "var-lib-calico", MountPath: "/var/lib/calico"})
	}
	mounts = append(mounts, corev1.VolumeMount{Name: "policysync", MountPath: "/var/run/nodeagent"})
	if o.EBPF {
		mounts = append(mounts, corev1.VolumeMount{Name: "bpffs", MountPath: "/sys/fs/bpf"})
	}
	return append(mounts, corev1.VolumeMount{Name: "cni-log-dir", MountPath: "/var/log/calico/cni", ReadOnly: true})
}

// refBirdExporter is the BIRD metrics exporter container.
func refBirdExporter(o *values.Options) corev1.Container {
	args := []string{"-format.new=true", "-bird.socket=/var/run/calico/bird.ctl"}
	if !o.IPv6 {
		args = append(args, "-bird.ipv6=false")
	}
	return corev1.Container{
		Name: "bird-exporter", Image: o.Images.BirdExporter, Args: append(args, "-web.listen-address=:9094"),
		Ports:        []corev1.ContainerPort{{Name: "bird-metrics", ContainerPort: 9094, Protocol: corev1.ProtocolTCP}},
		Resources:    refRequests(resource.MustParse("10m"), resource.MustParse("32Mi")),
		VolumeMounts: []corev1.VolumeMount{{Name: "var-run-calico", MountPath: "/var/run/calico", ReadOnly: true}}, // not in the facts
	}
}

// refNodeVolumes are calico-node's pod volumes.
func refNodeVolumes(o *values.Options) []corev1.Volume {
	dirOrCreate := ptr.To(corev1.HostPathDirectoryOrCreate)
	vs := []corev1.Volume{refHostPath("lib-modules", "/lib/modules", nil)}
	if o.NonPrivileged {
		vs = append(vs, refHostPath("var-run", "/var/run", nil), refHostPath("var-lib", "/var/lib", nil), refHostPath("var-log", "/var/log", nil))
	} else {
		vs = append(vs, refHostPath("var-run-calico", "/var/run/calico", dirOrCreate), refHostPath("var-lib-calico", "/var/lib/calico", dirOrCreate))
	}
	vs = append(vs, refHostPath("xtables-lock", "/run/xtables.lock", ptr.To(corev1.HostPathFileOrCreate)))
	if o.EBPF {
		vs = append(vs, refHostPath("sys-fs", "/sys/fs/", dirOrCreate), refHostPath("bpffs", "/sys/fs/bpf", ptr.To(corev1.HostPathDirectory)),
			refHostPath("nodeproc", "/proc", nil))
	}
	return append(vs, refHostPath("cni-bin-dir", "/opt/cni/bin", dirOrCreate), refHostPath("cni-net-dir", "/etc/cni/net.d", nil),
		refHostPath("cni-log-dir", "/var/log/calico/cni", nil), refHostPath("policysync", "/var/run/nodeagent", dirOrCreate))
}

// ReferenceTyphaTemplate is the reference's typha pod template (§2.7 and the measurements against the reference).
func ReferenceTyphaTemplate(o *values.Options) corev1.PodTemplateSpec {
	var e []corev1.EnvVar
	if o.IPAM.UsePodCIDR {
		e = append(e, refEnv("USE_POD_CIDR", "true"))
	}
	e = append(e, refEnv("TYPHA_PROMETHEUSMETRICSENABLED", "true"), refEnv("TYPHA_PROMETHEUSMETRICSPORT", "9093"),
		refEnv("TYPHA_LOGSEVERITYSCREEN", "info"), refEnv("TYPHA_LOGFILEPATH", "none"), refEnv("TYPHA_LOGSEVERITYSYS", "none"),
		refEnv("TYPHA_CONNECTIONREBALANCINGMODE", "kubernetes"), refEnv("TYPHA_DATASTORETYPE", "kubernetes"),
		refEnv("TYPHA_HEALTHENABLED", "true"), refEnv("TYPHA_SHUTDOWNTIMEOUTSECS", "300"))
	probe := func(path string, period, delay int32) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(9098), Host: "localhost"}},
			PeriodSeconds: period, InitialDelaySeconds: delay, TimeoutSeconds: 10,
		}
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1ObjectMeta(map[string]string{
			"k8s-app": "calico-typha", "gardener.cloud/role": "system-component", "origin": "gardener",
			"networking.gardener.cloud/to-public-networks": "allowed", "networking.gardener.cloud/to-apiserver": "allowed",
			"networking.gardener.cloud/to-dns": "allowed",
		}, map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}),
		Spec: corev1.PodSpec{
			Tolerations: []corev1.Toleration{
				{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}, {Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
			},
			HostNetwork: true, TerminationGracePeriodSeconds: ptr.To[int64](300), PriorityClassName: "system-cluster-critical",
			ServiceAccountName: "calico-typha",
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534), SupplementalGroups: []int64{1},
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name: "calico-typha", Image: o.Images.CalicoTypha,
				Ports: []corev1.ContainerPort{
					{Name: "calico-typha", ContainerPort: 5473, Protocol: corev1.ProtocolTCP},
					{Name: "metrics", ContainerPort: 9093, Protocol: corev1.ProtocolTCP},
				},
				Env:             e,
				Resources:       refRequests(o.AutoScaling.TyphaRequests.CPU, o.AutoScaling.TyphaRequests.Memory),
				LivenessProbe:   probe("/liveness", 30, 30),
				ReadinessProbe:  probe("/readiness", 10, 0),
				SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false)},
			}},
		},
	}
}

func metav1ObjectMeta(labels, annotations map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Labels: labels, Annotations: annotations}
}

// RollScenarios are the scenarios of the reference's matrix (§2.10) the golden scenarios cover, plus
// the eBPF-on-Azure fix.
var RollScenarios = []string{
	"default", "empty-config", "overlay-enabled", "overlay-disabled", "overlay-disabled-no-snat-dns",
	"overlay-disabled-create-pod-routes", "overlay-vxlan", "vxlan-without-overlay-field", "typha-disabled",
	"vpa-with-resources", "vpa-without-resources", "static-with-resources", "static-without-resources",
	"cluster-proportional-no-shoot-vpa", "ebpf-kube-proxy-off", "ebpf-kube-proxy-on", "ebpf-non-privileged-gate",
	"ebpf-azure", "non-privileged-overlay", "non-privileged-overlay-disabled", "bird-exporter",
	"multus-install-cni-plugins", "wireguard", "kube-proxy-nftables", "calico-ipam", "service-loop-prevention-mtu",
	"backend-none", "ipv4-mode-cross-subnet", "overlay-ipv4-cross-subnet", "deprecated-ipip-autodetection",
	"ipam-host-local-cidr", "status-node-cidrs", "ipv6", "dual-stack", "dual-stack-overlay-disabled",
}

// ScenarioNamed returns the scenario of a name.
func ScenarioNamed(name string) (Scenario, error) {
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc, nil
		}
	}
	return Scenario{}, fmt.Errorf("no scenario %s", name)
}

// Rendered is one render of a scenario: its options and the workloads a roll count looks at.
type Rendered struct {
	Options values.Options
	Objects []client.Object
	// Node is calico-node; Typha is calico-typha-deploy (nil when typha is off); Config is calico-config.
	Node   *appsv1.DaemonSet
	Typha  *appsv1.Deployment
	Config *corev1.ConfigMap
}

// RenderCompat renders a scenario at the reference's Calico release in a compatibility mode with what was taken over (nil: nothing).
func RenderCompat(sc Scenario, taken *calicov1alpha1.TakenOverTemplate, mode calicov1alpha1.CompatibilityMode) (Rendered, error) {
	s := ShootOf(sc)
	cfg, errs := pipeline.ShootConfig(s)
	if len(errs) > 0 {
		return Rendered{}, errs.ToAggregate()
	}
	// The release the reference deploys (docs/reference-extension.md §2.1), which a taken-over
	// shoot keeps: the catalogue's release of shoots without a record (Base).
	calico := calicoversion.Steady(Base())
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		return Rendered{}, err
	}
	imgs, err := vector.ImagesFor(imagevector.FindOptions{}, calico)
	if err != nil {
		return Rendered{}, err
	}
	o, errs := pipeline.Options(pipeline.Source{Shoot: s, SeedNamespace: "shoot--dev--test"}, cfg, values.Settings{
		FeatureGates: values.FeatureGates{NonPrivilegedCalicoNode: sc.NonPrivileged}, Images: imgs, Calico: calico, Ratchet: true, Compatibility: mode, TakenOver: taken,
	})
	if len(errs) > 0 {
		return Rendered{}, errs.ToAggregate()
	}
	objs, err := Shoot(&o)
	if err != nil {
		return Rendered{}, err
	}
	r := Rendered{Options: o, Objects: objs}
	for _, obj := range objs {
		switch v := obj.(type) {
		case *appsv1.DaemonSet:
			if v.Name == render.NameCalicoNode {
				r.Node = v
			}
		case *appsv1.Deployment:
			if v.Name == render.NameTyphaDeployment {
				r.Typha = v
			}
		case *corev1.ConfigMap:
			if v.Name == "calico-config" {
				r.Config = v
			}
		}
	}
	return r, nil
}

// referencePreserveResources is the reference's annotation on calico-node and typha, unless the
// autoscaling mode is static (§2.4, §2.7).
func referencePreserveResources(o *values.Options) map[string]string {
	if o.AutoScaling.Mode == values.AutoScalingStatic {
		return nil
	}
	return map[string]string{"resources.gardener.cloud/preserve-resources": "true"}
}

// ReferenceNodeDaemonSet is the reference's calico-node DaemonSet (§2.4).
func ReferenceNodeDaemonSet(o *values.Options) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "calico-node", Namespace: "kube-system", Annotations: referencePreserveResources(o),
			Labels: map[string]string{"k8s-app": "calico-node", "gardener.cloud/role": "system-component", "node.gardener.cloud/critical-component": "true"},
		},
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node"}}, // not in the facts
			RevisionHistoryLimit: ptr.To[int32](2),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: ptr.To(intstr.FromInt32(2))},
			},
			Template: ReferenceNodeTemplate(o),
		},
	}
	return ds
}

// ReferenceTyphaDeployment is the reference's calico-typha-deploy Deployment (§2.7): no replicas
// (the horizontal autoscaler sets them).
func ReferenceTyphaDeployment(o *values.Options) *appsv1.Deployment {
	maxSurge := intstr.FromString("100%")
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "calico-typha-deploy", Namespace: "kube-system", Annotations: referencePreserveResources(o),
			Labels: map[string]string{"k8s-app": "calico-typha"}, // not in the facts beyond k8s-app
		},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-typha"}}, // not in the facts
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(1)), MaxSurge: &maxSurge},
			},
			Template: ReferenceTyphaTemplate(o),
		},
	}
}

// ReferenceManifest is the reference's deployed manifest for o as its ManagedResource secret holds
// it (YAML under config.yaml): calico-config with the data of cm in other whitespace, the calico-node
// DaemonSet and, with typha on, the typha Deployment. edit, if not nil, changes the workloads first.
func ReferenceManifest(o *values.Options, cm *corev1.ConfigMap, edit func(*appsv1.DaemonSet, *appsv1.Deployment)) (map[string][]byte, error) {
	refCM := cm.DeepCopy()
	refCM.Data["cni_network_config"] = strings.ReplaceAll(cm.Data["cni_network_config"], "\n  ", "\n    ")
	refCM.APIVersion, refCM.Kind = "v1", "ConfigMap"
	ds := ReferenceNodeDaemonSet(o)
	var typha *appsv1.Deployment
	objs := []client.Object{refCM, ds}
	if o.Typha {
		typha = ReferenceTyphaDeployment(o)
		objs = append(objs, typha)
	}
	if edit != nil {
		edit(ds, typha)
	}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		return nil, err
	}
	y, err := m.YAML()
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"config.yaml": y}, nil
}
