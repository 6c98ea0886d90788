package render

import (
	"strconv"
	"strings"
	"unicode"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// nonPrivilegedUID is the user calico-node runs as without privileges (Calico's documented choice).
const nonPrivilegedUID = 999

// The ports calico-node's containers serve metrics on, each stated once for the setting that
// chooses it, the container port and the monitoring Service.
const (
	// felixMetricsPort is felix's Prometheus endpoint (FELIX_PROMETHEUSMETRICSPORT).
	felixMetricsPort = 9091
	// birdMetricsPort is bird-exporter's Prometheus endpoint (-web.listen-address).
	birdMetricsPort = 9094
)

// nodeCPVAConfig sizes calico-node's memory with the node count; CPU stays at its request.
const nodeCPVAConfig = `{"calico-node":{"requests":{"memory":{"base":"50Mi","step":"50Mi","nodesPerStep":10,"max":"1400Mi"}}}}`

// nodeCPVA is calico-node's cluster-proportional vertical autoscaler in layout l.
func nodeCPVA(l layout.Layout) cpva {
	return cpva{
		name: NameNodeCPVA, app: AppNodeCPVA, rbacName: NameNodeCPVARBAC,
		// calico-node's own size must not wait behind other workloads.
		priorityClass: "system-cluster-critical",
		targetKind:    "daemonset", targetName: l.Node.Name, key: "node-autoscaler", config: nodeCPVAConfig,
	}
}

// calicoNode returns calico-node's objects that depend on the options: its configuration
// calico-config (cniconfig.go), the DaemonSet, the binding of its ClusterRole, bird's metrics
// Service, and its VerticalPodAutoscaler or cluster-proportional vertical autoscaler. Its other
// objects do not depend on the options (constantRBAC and felixMonitoringService in GroupAlways,
// nodeCPVAConstants in GroupNodeCPVA; see constants.go).
func calicoNode(o *values.Options) (part, error) {
	l := layoutOf(o)
	cm, err := configMap(o)
	if err != nil {
		return part{}, err
	}
	groups := []Constant{constantOf(GroupAlways, o)}
	// The pods roll when the configuration they read changes.
	objs := make([]client.Object, 0, 6) // every object below, without reallocating
	objs = append(objs, cm, nodeRoleBinding(o), nodeDaemonSet(o, configChecksum(o, cm.Data)))
	if o.BirdExporter && !o.NonPrivileged {
		objs = append(objs, monitoringService(l, NameBirdMonitoring, l.Node, birdMetricsPort, "metrics"))
	}
	a := o.AutoScaling
	if a.NodeVPA {
		objs = append(objs, nodeVPA(o))
	}
	if a.NodeCPVA {
		objs = append(objs, cpvaDeployment(o, nodeCPVA(l)))
		groups = append(groups, constantOf(GroupNodeCPVA, o))
	}
	return part{objects: objs, groups: groups}, nil
}

// nodeRoleBinding binds calico-node's ClusterRole to calico-node and, with typha, to typha.
func nodeRoleBinding(o *values.Options) client.Object {
	l := layoutOf(o)
	nodeSubjects := []rbacv1.Subject{saSubject(l, l.Node.ServiceAccount)}
	if o.Typha {
		// Typha serves calico-node's view of the datastore and needs the same read access.
		nodeSubjects = append(nodeSubjects, saSubject(l, l.Typha.ServiceAccount))
	}
	return clusterRoleBinding(l.Node.ServiceAccount, l.Node.ServiceAccount, nil, nodeSubjects...)
}

// constantRBAC returns the RBAC and ServiceAccounts of calico-node (whose ClusterRole typha
// shares, as upstream's typha runs as calico-node), of the CNI plugin calico-node installs and mints
// tokens for, and of the tier getter, which every shoot gets whatever its options: it takes no
// Options, so its bytes can be encoded once (see constants.go).
//
// The rules are those Calico v3.31.6's own manifest grants each component, minus what its code
// provably never asks for on a Gardener shoot (docs/calico-rbac.md lists each difference with the
// oracle row that shows it; TestRolesMatchCalicoFacts holds the two together, and the Calico oracle
// (internal/calicooracle) replays every request Calico makes under these roles).
//
// The roles serve every release that may run in the shoot's step (served): the union of what each
// needs (rbac_lines.go has the differences of releases after v3.31.6), so that during a move the pods
// not yet replaced keep working beside the new ones. The objects are named in layout l.
func constantRBAC(l layout.Layout, served Served) []client.Object {
	return []client.Object{
		clusterRole(l.Node.ServiceAccount, nil, append([]rbacv1.PolicyRule{
			// calico-node mints the CNI plugin's short-lived tokens (-monitor-token).
			rbacv1.PolicyRule{APIGroups: core, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}, ResourceNames: []string{l.CNIPlugin}},
			// The CNI plugin's lookups, also done by calico-node: the pod, its namespace and the node.
			rule(core, []string{"pods", "nodes", "namespaces"}, []string{"get"}),
			// Felix and typha compute service-based policy rules from EndpointSlices and find typha by them.
			rule([]string{"discovery.k8s.io"}, []string{"endpointslices"}, []string{"watch", "list"}),
			// bird advertises service addresses; Felix reads services.
			rule(core, []string{"endpoints", "services"}, []string{"watch", "list", "get"}),
			// Pod CIDR detection at start-up reads kube-system/kubeadm-config (and full-cluster-state).
			rule(core, []string{"configmaps"}, []string{"get"}),
			// update: the node's Calico addresses and annotations; patch: clearing NetworkUnavailable.
			rule(core, []string{"nodes/status"}, []string{"patch", "update"}),
			// Felix and typha watch the Kubernetes policies they enforce.
			rule([]string{"networking.k8s.io"}, []string{"networkpolicies"}, []string{"watch", "list"}),
			// (B)ANP (v3.31) and ClusterNetworkPolicy (v3.32, which no longer reads (B)ANP).
			rule([]string{"policy.networking.k8s.io"}, served.policyAPIResources(), []string{"watch", "list"}),
			// Workload endpoints and profiles are computed from pods, namespaces and service accounts.
			rule(core, []string{"pods", "namespaces", "serviceaccounts"}, []string{"list", "watch"}),
			// The CNI plugin records the workload endpoint in the pod's annotations.
			rule(core, []string{"pods/status"}, []string{"patch"}),
			// Everything Felix, bird, confd and typha's syncers read from Calico's own resources.
			rule(calico, []string{
				"bgpconfigurations", "bgpfilters", "bgppeers", "blockaffinities", "caliconodestatuses", "clusterinformations",
				"felixconfigurations", "globalnetworkpolicies", "globalnetworksets", "hostendpoints", "ipamblocks",
				"ippools", "ipreservations", "networkpolicies", "networksets", "stagedglobalnetworkpolicies",
				"stagedkubernetesnetworkpolicies", "stagednetworkpolicies", "tiers",
			}, read),
			// -startup's KDD migration check GETs the v1 CalicoVersion key whenever ClusterInformation has
			// no calicoVersion (every new cluster): a 404 means "nothing to migrate", a 403 ends start-up.
			rbacv1.PolicyRule{APIGroups: calico, Resources: []string{"globalfelixconfigs"}, Verbs: []string{"get"}, ResourceNames: []string{"calicoversion"}},
			// EnsureInitialized (-startup, typha) creates the default, adminnetworkpolicy and
			// baselineadminnetworkpolicy tiers; without them Felix ends those tiers with Deny.
			rule(calico, []string{"tiers"}, []string{"create"}),
			// Start-up creates the default pools (when none exists), FelixConfiguration default and ClusterInformation.
			rule(calico, []string{"ippools", "felixconfigurations", "clusterinformations"}, []string{"create", "update"}),
			// calico-node answers CalicoNodeStatus requests.
			rule(calico, []string{"caliconodestatuses"}, []string{"update"}),
			// Calico keeps its node configuration on the Node.
			rule(core, []string{"nodes"}, read),
			// calico-ipam on the node: tunnel addresses, block affinities (UpgradeHost).
			rule(calico, ipamRes, []string{"get", "list", "create", "update", "delete"}),
			// The IPAM client reads, or creates, the default IPAMConfiguration.
			rule(calico, []string{"ipamconfigs"}, []string{"get", "create"}),
			// confd watches block affinities for route aggregation.
			rule(calico, []string{"blockaffinities"}, []string{"watch"}),
		}, served.nodeRules()...)...,
		),
		serviceAccount(l, l.Node.ServiceAccount),
		clusterRole(l.CNIPlugin, nil, append([]rbacv1.PolicyRule{
			// The CNI plugin looks up the pod, its namespace (pool namespaceSelectors) and the node (usePodCidr).
			rule(core, []string{"pods", "nodes", "namespaces"}, []string{"get"}),
			// It records the workload endpoint in the pod's annotations.
			rule(core, []string{"pods/status"}, []string{"patch"}),
			// calico-ipam assigns and releases addresses; the plugin checks ClusterInformation's datastoreReady.
			rule(calico, []string{"blockaffinities", "ipamblocks", "ipamhandles", "clusterinformations", "ippools", "ipreservations", "ipamconfigs"},
				[]string{"get", "list", "create", "update", "delete"}),
		}, served.cniRules()...)...,
		),
		clusterRoleBinding(l.CNIPlugin, l.CNIPlugin, nil, saSubject(l, l.CNIPlugin)),
		serviceAccount(l, l.CNIPlugin),
		clusterRole(NameTierGetter, nil,
			// kube-controller-manager's garbage collector resolves tiers of the Calico API group.
			rule([]string{"projectcalico.org"}, []string{"tiers"}, []string{"get"}),
		),
		clusterRoleBinding(NameTierGetter, NameTierGetter, nil, rbacv1.Subject{
			APIGroup: "rbac.authorization.k8s.io", Kind: rbacv1.UserKind, Name: "system:kube-controller-manager",
		}),
	}
}

// felixMonitoringService is the Service Prometheus finds felix's metrics by; every shoot runs
// felix, so it does not depend on the options (see constants.go).
func felixMonitoringService(l layout.Layout) client.Object {
	return monitoringService(l, NameFelixMonitoring, l.Node, felixMetricsPort, "metrics")
}

// nodeCPVAConstants returns calico-node's vertical autoscaler's RBAC and ConfigMap, which do not
// depend on the options (see constants.go).
func nodeCPVAConstants(l layout.Layout) []client.Object {
	return cpvaConstants(l, nodeCPVA(l))
}

// nodeVPA lets the VPA set calico-node's requests (vpa mode); the small helper sidecars keep
// their fixed requests.
func nodeVPA(o *values.Options) client.Object {
	off := func(name string) vpav1.ContainerResourcePolicy {
		return vpav1.ContainerResourcePolicy{ContainerName: name, Mode: ptr.To(vpav1.ContainerScalingModeOff)}
	}
	return vpa(layoutOf(o), NameCalicoNode, "DaemonSet", layoutOf(o).Node.Name, []vpav1.ContainerResourcePolicy{
		{
			ContainerName: NameCalicoNode, ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
			MinAllowed: resourceList(o.AutoScaling.NodeMinAllowed),
		},
		off(ContainerAddSNAT), off(ContainerEnsurer), off(ContainerBirdExporter),
	})
}

// nodeDaemonSet builds calico-node's DaemonSet (kube-system/calico-node in the default layout).
// configChecksum is the checksum of calico-node's ConfigMap, so the pods roll when the configuration
// they read changes.
func nodeDaemonSet(o *values.Options, configChecksum string) *appsv1.DaemonSet {
	l := layoutOf(o)
	labels := systemComponent(map[string]string{l.Node.Selector.Key: l.Node.Selector.Value, LabelCriticalComponent: "true"})
	podLabels := systemComponent(appLabels(l, l.Node, map[string]string{
		LabelCriticalComponent:                         "true",
		"networking.gardener.cloud/to-public-networks": "allowed",
		"networking.gardener.cloud/to-apiserver":       "allowed",
		"networking.gardener.cloud/to-dns":             "allowed",
	}))
	ds := &appsv1.DaemonSet{
		TypeMeta:   typeMeta("apps/v1", "DaemonSet"),
		ObjectMeta: meta(l.Node.Name, l.Namespace, labels),
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: selectorOf(l.Node)},
			RevisionHistoryLimit: ptr.To[int32](2),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{
				Type: appsv1.RollingUpdateDaemonSetStrategyType,
				// Two at a time so that bird peers can come up together when the overlay is switched.
				RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: intOrInt(2)},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      podLabels,
					Annotations: withTyphaTLSChecksum(map[string]string{AnnotationChecksumConfig: configChecksum}, o.TyphaTLS),
				},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					HostNetwork:        true,
					HostAliases:        goldmaneHostAliases(o),
					Tolerations:        tolerations(),
					ServiceAccountName: l.Node.ServiceAccount,
					// automountServiceAccountToken stays unset: the resource manager's projected-token-mount
					// webhook injects the token only into pods that leave it unset and whose ServiceAccount
					// sets it to false (see serviceAccount).
					SecurityContext: &corev1.PodSecurityContext{SeccompProfile: seccompRuntimeDefault()},
					// calico-node -shutdown (preStop) does the graceful part; no need to wait longer.
					TerminationGracePeriodSeconds: ptr.To[int64](0),
					PriorityClassName:             "system-node-critical",
					InitContainers:                nodeInitContainers(o),
					Containers:                    nodeContainers(o),
					Volumes:                       nodeVolumes(o),
				},
			},
		},
	}
	if o.AutoScaling.PreserveResources {
		ds.Annotations = map[string]string{resourcesv1alpha1.AnnotationPreserveResources: "true"}
	}
	return ds
}

func nodeInitContainers(o *values.Options) []corev1.Container {
	l := layoutOf(o)
	var cs []corev1.Container
	shell := "/bin/sh"
	if o.ReferenceTemplates {
		shell = "sh" // the reference's
	}
	if o.OverlayDisabled {
		cs = append(cs, corev1.Container{
			Name:    ContainerCleanupRoutes,
			Image:   o.Images.CalicoNode,
			Command: takenOverCommand(o, ContainerCleanupRoutes, shell, "-c", cleanupRoutesScript),
			// Deleting host routes needs NET_ADMIN in the host network namespace.
			SecurityContext: privileged(),
		})
	}
	logMTU := corev1.Container{
		Name:            ContainerLogMTUIssues,
		Image:           o.Images.CalicoNode,
		Command:         takenOverCommand(o, ContainerLogMTUIssues, "/bin/sh", "-c", logMTUIssuesScript),
		SecurityContext: privileged(),
	}
	if !o.ReferenceTemplates {
		// The host's iptables lock, so the rule inserts wait for kube-proxy's and Felix's writes
		// (legacy iptables). The reference's init container runs without it
		// (docs/compatibility.md, section 2): Reference mode keeps its template, as a roll of
		// every taken-over calico-node for two idempotent rule inserts at start is no fix a shoot needs.
		logMTU.VolumeMounts = []corev1.VolumeMount{{Name: "xtables-lock", MountPath: "/run/xtables.lock"}}
	}
	cs = append(cs, logMTU)
	cs = append(cs, corev1.Container{
		Name:    ContainerInstallCNI,
		Image:   o.Images.CalicoCNI,
		Command: []string{"/opt/cni/bin/install"},
		EnvFrom: kubeServicesEndpoint(),
		Env: []corev1.EnvVar{
			env("CNI_CONF_NAME", "10-calico.conflist"),
			envFromConfigMap(l, "CNI_NETWORK_CONFIG", l.CNIConfigKey),
			envNodeName("KUBERNETES_NODE_NAME"),
			envFromConfigMap(l, "CNI_MTU", "veth_mtu"),
			// Install once and exit: this is an init container.
			env("SLEEP", "false"),
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "cni-net-dir", MountPath: "/host/etc/cni/net.d"},
			// install-cni copies the binaries into every writable target it finds; this is the host's.
			{Name: "cni-bin-dir", MountPath: "/host/secondary-bin-dir"},
		},
		SecurityContext: privileged(),
	})
	if o.EBPF {
		bidi := ptr.To(corev1.MountPropagationBidirectional)
		cs = append(cs, corev1.Container{
			Name:    ContainerEBPFBootstrap,
			Image:   o.Images.CalicoNode,
			Command: []string{"calico-node", "-init", "-best-effort"},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "sys-fs", MountPath: "/sys/fs", MountPropagation: bidi},
				{Name: "var-run-calico", MountPath: "/var/run/calico", MountPropagation: bidi},
				{Name: "nodeproc", MountPath: "/nodeproc", ReadOnly: true},
			},
			// Mounting bpffs needs full privileges.
			SecurityContext: privileged(),
		})
	}
	if o.NonPrivileged {
		command := []string{"calico-node", "-hostpath-init"}
		if o.ReferenceTemplates {
			command = takenOverCommand(o, ContainerHostPathInit, "sh", "-c", "calico-node -hostpath-init")
		}
		cs = append(cs, corev1.Container{
			Name:    ContainerHostPathInit,
			Image:   o.Images.CalicoNode,
			Command: command,
			Env:     []corev1.EnvVar{env("NODE_USER_ID", "999")},
			// Root only to chown the host paths calico-node later writes as user 999.
			SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0), AllowPrivilegeEscalation: ptr.To(false)},
			VolumeMounts:    nonPrivilegedMounts(),
		})
	}
	return cs
}

func nonPrivilegedMounts() []corev1.VolumeMount {
	return []corev1.VolumeMount{
		{Name: "var-run", MountPath: "/var/run"},
		{Name: "var-lib", MountPath: "/var/lib"},
		{Name: "var-log", MountPath: "/var/log"},
	}
}

func nodeContainers(o *values.Options) []corev1.Container {
	var cs []corev1.Container
	// The helper sidecars' small fixed requests (calico-pilot's; the reference's have none).
	snatResources, ensurerResources := requests("10m", "20Mi"), requests("10m", "32Mi")
	if o.ReferenceTemplates {
		snatResources, ensurerResources = corev1.ResourceRequirements{}, corev1.ResourceRequirements{}
	}
	if o.SNATToUpstreamDNS {
		sc := privileged()
		if o.NonPrivileged {
			sc = &corev1.SecurityContext{
				Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false),
				Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}},
			}
		}
		podCIDR := o.PodCIDRv4
		if !o.IPv4 {
			podCIDR = o.PodCIDRv6
		}
		cs = append(cs, corev1.Container{
			Name:            ContainerAddSNAT,
			Image:           o.Images.CalicoNode,
			Command:         takenOverCommand(o, ContainerAddSNAT, "/bin/sh", "-c", addSNATScript),
			Env:             []corev1.EnvVar{env("POD_CIDR", podCIDR)},
			Resources:       snatResources,
			SecurityContext: sc,
			VolumeMounts:    []corev1.VolumeMount{{Name: "xtables-lock", MountPath: "/run/xtables.lock"}},
		})
	}
	if !o.ReferenceTemplates {
		cs = append(cs, calicoNodeContainer(o))
	}
	if o.NetworkUnavailableEnsurer {
		e := []corev1.EnvVar{
			// -complete-startup runs with calico-node's datastore settings (upstream runs it in the
			// calico-node container), skips the condition with backend none and gates it on Felix's
			// readiness (Felix's health endpoint on the host network, which the pod shares).
			env("DATASTORE_TYPE", "kubernetes"),
			envFromConfigMap(layoutOf(o), "CALICO_NETWORKING_BACKEND", "calico_backend"),
			envNodeName("NODENAME"),
			env("FELIX_HEALTHENABLED", "true"),
		}
		cs = append(cs, corev1.Container{
			Name:      ContainerEnsurer,
			Image:     o.Images.CalicoNode,
			Command:   []string{"/bin/sh", "-c", ensurerScript},
			EnvFrom:   kubeServicesEndpoint(),
			Env:       e,
			Resources: ensurerResources,
			// It only talks to the API server; no host privileges needed.
			SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(false), AllowPrivilegeEscalation: ptr.To(false)},
		})
	}
	if o.ReferenceTemplates {
		// The reference's order: the sidecars, then calico-node, then bird's exporter.
		cs = append(cs, calicoNodeContainer(o))
	}
	if o.BirdExporter && !o.NonPrivileged {
		args := []string{"-format.new=true", "-bird.socket=/var/run/calico/bird.ctl"}
		if !o.IPv6 {
			args = append(args, "-bird.ipv6=false")
		}
		args = append(args, "-web.listen-address=:"+strconv.Itoa(birdMetricsPort))
		cs = append(cs, corev1.Container{
			Name:         ContainerBirdExporter,
			Image:        o.Images.BirdExporter,
			Args:         args,
			Ports:        []corev1.ContainerPort{{Name: "bird-metrics", ContainerPort: birdMetricsPort, Protocol: corev1.ProtocolTCP}},
			Resources:    requests("10m", "32Mi"),
			VolumeMounts: []corev1.VolumeMount{{Name: "var-run-calico", MountPath: "/var/run/calico", ReadOnly: true}},
		})
	}
	return cs
}

func calicoNodeContainer(o *values.Options) corev1.Container {
	l := layoutOf(o)
	// Sized for every variable below, so appending never reallocates.
	e := make([]corev1.EnvVar, 0, 58)
	if o.IPAM.UsePodCIDR {
		e = append(e, env("USE_POD_CIDR", "true"))
	}
	e = append(e,
		env("FELIX_PROMETHEUSMETRICSENABLED", "true"),
		env("FELIX_PROMETHEUSMETRICSPORT", strconv.Itoa(felixMetricsPort)),
		env("DATASTORE_TYPE", "kubernetes"),
		envFromConfigMap(l, "FELIX_TYPHAK8SSERVICENAME", "typha_service_name"),
	)
	if l.Namespace != calicoDefaultNamespace {
		// Felix looks the Typha Service up in kube-system unless told otherwise.
		e = append(e, env("FELIX_TYPHAK8SNAMESPACE", l.Namespace))
	}
	e = append(e, felixTyphaTLSEnv(o.TyphaTLS)...)
	e = append(e, goldmaneNodeEnv(o)...)
	e = append(e,
		env("WAIT_FOR_DATASTORE", "true"),
		envNodeName("NODENAME"),
		envFromConfigMap(l, "CALICO_NETWORKING_BACKEND", "calico_backend"),
		env("CLUSTER_TYPE", "k8s,bgp"),
	)
	e = append(e, nodeAddressEnv(o)...)
	e = append(e,
		env("FELIX_IPV6SUPPORT", boolString(o.IPv6)),
		envFromConfigMap(l, "FELIX_IPINIPMTU", "veth_mtu"),
		envFromConfigMap(l, "FELIX_VXLANMTU", "veth_mtu"),
		envFromConfigMap(l, "FELIX_WIREGUARDMTU", "veth_mtu"),
		env("CALICO_DISABLE_FILE_LOGGING", "true"),
		env("FELIX_DEFAULTENDPOINTTOHOSTACTION", "ACCEPT"),
	)
	if o.FelixIPIPEnabled != nil {
		e = append(e, env("FELIX_IPINIPENABLED", boolString(*o.FelixIPIPEnabled)))
	}
	e = append(e, env("FELIX_BPFENABLED", boolString(o.EBPF)))
	if o.BPFDataIfacePattern != "" {
		// Azure with eBPF (values.AzureBPFDataIfacePattern). Felix ranks environment variables above
		// FelixConfiguration, so this wins over a pattern set by hand in FelixConfiguration default
		// (the manual fix of networking-calico's end-user guide sets the same pattern); FelixConfiguration default itself is not
		// rendered because calico-node writes to it and the resource manager would overwrite it.
		e = append(e, env("FELIX_BPFDATAIFACEPATTERN", o.BPFDataIfacePattern))
	}
	if o.EBPF && o.KubeProxyEnabled {
		if o.ReferenceTemplates {
			// The reference's misspelt name beside the correct one. Felix ignores it, so it is
			// harmless, and dropping it would roll calico-node on every taken-over eBPF shoot
			// with kube-proxy for nothing (docs/compatibility.md, section 2).
			e = append(e, env("FELIX_BPFKUBEPROXYHEALTZPORT", "10257"))
		}
		// kube-proxy owns 10256; move Felix's kube-proxy health port out of its way.
		e = append(e, env("FELIX_BPFKUBEPROXYHEALTHZPORT", "10257"))
	}
	e = append(e,
		env("FELIX_BPFKUBEPROXYIPTABLESCLEANUPENABLED", boolString(!o.KubeProxyEnabled)),
		env("FELIX_HEALTHENABLED", "true"),
		env("FELIX_NATPORTRANGE", "32768:65535"),
	)
	if o.ServiceLoopPrevention != "" {
		e = append(e, env("FELIX_SERVICELOOPPREVENTION", o.ServiceLoopPrevention))
	}
	if o.NFTables {
		e = append(e, env("FELIX_NFTABLESMODE", "Enabled"))
	} else if o.Calico.Node.Has(calicoversion.FelixNFTablesAuto) {
		// From v3.32 Felix defaults to Auto (and its CRD stamps Auto on FelixConfiguration default), which
		// switches a node to nftables when kube-proxy has an nftables table (docs/calico-lines.md). calico-pilot
		// decides the data plane from the shoot's kube-proxy mode, as for v3.31: the environment
		// outranks FelixConfiguration, so an upgrade keeps iptables.
		e = append(e, env("FELIX_NFTABLESMODE", "Disabled"))
	}
	if o.SNATToUpstreamDNS {
		// The SNAT rule must come before Calico's own; appending Calico's chains leaves it first.
		e = append(e, env("FELIX_CHAININSERTMODE", "Append"))
	}
	if o.WireGuard {
		e = append(e, env("FELIX_WIREGUARDENABLED", "true"), env("FELIX_WIREGUARDENABLEDV6", "true"))
	}
	e = append(e, env("CALICO_MANAGE_CNI", "true"))
	if !o.ReferenceTemplates {
		// Calico's anonymous usage reporting is off, as in the distributions.
		e = append(e, env("FELIX_USAGEREPORTINGENABLED", "false"))
	}
	if o.FelixVXLANEnabled {
		if o.ReferenceTemplates && o.IPv4 && o.IPv4Pool.Encapsulation == values.EncapsulationVXLAN {
			// The reference sets it here, next to FELIX_VXLANENABLED.
			e = append(e, env("CALICO_IPV4POOL_IPIP", "Never"))
		}
		e = append(e, env("FELIX_VXLANENABLED", "true"))
	}

	live := []string{"/bin/calico-node", "-felix-live"}
	ready := []string{"/bin/calico-node", "-felix-ready"}
	if o.Backend == calicov1alpha1.BackendBird {
		live = append(live, "-bird-live")
		ready = append(ready, "-bird-ready")
	}
	sc := privileged()
	if o.NonPrivileged {
		sc = &corev1.SecurityContext{
			RunAsUser:                ptr.To[int64](nonPrivilegedUID),
			RunAsGroup:               ptr.To[int64](0),
			Privileged:               ptr.To(false),
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_RAW", "NET_ADMIN", "NET_BIND_SERVICE"}},
		}
	}
	return corev1.Container{
		Name:      NameCalicoNode,
		Image:     o.Images.CalicoNode,
		EnvFrom:   kubeServicesEndpoint(),
		Env:       e,
		Ports:     []corev1.ContainerPort{{Name: "metrics", ContainerPort: felixMetricsPort, Protocol: corev1.ProtocolTCP}},
		Resources: requestsOf(o.AutoScaling.NodeRequests),
		Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/calico-node", "-shutdown"}}}},
		LivenessProbe: &corev1.Probe{
			ProbeHandler:        corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: live}},
			PeriodSeconds:       10,
			InitialDelaySeconds: 10,
			FailureThreshold:    6,
			TimeoutSeconds:      10,
		},
		ReadinessProbe: &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: ready}},
			PeriodSeconds:  10,
			TimeoutSeconds: 10,
		},
		SecurityContext: sc,
		VolumeMounts:    nodeMounts(o),
	}
}

// nodeAddressEnv is calico-node's address and default pool env per family: how the node's
// address is found (IP, IP6 and their autodetection methods) and the pool calico-node creates at
// start-up (CALICO_IPV4POOL_*, CALICO_IPV6POOL_*).
func nodeAddressEnv(o *values.Options) []corev1.EnvVar {
	e := make([]corev1.EnvVar, 0, 10) // every variable below, without reallocating
	if o.NoDefaultPools {
		// calico-pilot creates the pools (internal/pools); calico-node creates none at start-up.
		e = append(e, env("NO_DEFAULT_POOLS", "true"))
	}
	if o.IPv4 {
		e = append(e, env("IP", "autodetect"))
		if !o.NoDefaultPools {
			e = append(e, env("CALICO_IPV4POOL_"+string(o.IPv4Pool.Encapsulation), o.IPv4Pool.Mode))
			if o.IPv4Pool.Encapsulation == values.EncapsulationVXLAN && !o.ReferenceTemplates {
				// Make sure a pool created from env never gets IPIP as well.
				e = append(e, env("CALICO_IPV4POOL_IPIP", "Never"))
			}
			e = append(e, env("CALICO_IPV4POOL_CIDR", o.PodCIDRv4))
		}
		if o.IPv4AutoDetectionMethod != "" {
			e = append(e, env("IP_AUTODETECTION_METHOD", o.IPv4AutoDetectionMethod))
		}
	} else {
		e = append(e, env("IP", "none"))
	}
	if o.IPv6 {
		e = append(e, env("IP6", "autodetect"))
		if !o.NoDefaultPools {
			e = append(e,
				env("CALICO_IPV6POOL_"+string(o.IPv6Pool.Encapsulation), o.IPv6Pool.Mode),
				env("CALICO_IPV6POOL_CIDR", o.PodCIDRv6),
			)
		}
		if o.IPv6AutoDetectionMethod != "" {
			e = append(e, env("IP6_AUTODETECTION_METHOD", o.IPv6AutoDetectionMethod))
		}
		if !o.NoDefaultPools {
			e = append(e, env("CALICO_IPV6POOL_NAT_OUTGOING", boolString(o.IPv6Pool.NATOutgoing)))
		}
		// IPv6-only nodes have no IPv4 address to derive a BGP router ID from.
		e = append(e, env("CALICO_ROUTER_ID", "hash"))
	}
	return e
}

// nodeMounts are calico-node's volume mounts.
func nodeMounts(o *values.Options) []corev1.VolumeMount {
	mounts := make([]corev1.VolumeMount, 0, 13) // every mount below, without reallocating
	mounts = append(mounts,
		corev1.VolumeMount{Name: "cni-net-dir", MountPath: "/host/etc/cni/net.d"},
		corev1.VolumeMount{Name: "lib-modules", MountPath: "/lib/modules", ReadOnly: true},
		corev1.VolumeMount{Name: "xtables-lock", MountPath: "/run/xtables.lock"},
	)
	if o.NonPrivileged {
		mounts = append(mounts, nonPrivilegedMounts()...)
	} else {
		mounts = append(mounts,
			corev1.VolumeMount{Name: "var-run-calico", MountPath: "/var/run/calico"},
			corev1.VolumeMount{Name: "var-lib-calico", MountPath: "/var/lib/calico"},
		)
	}
	mounts = append(mounts, corev1.VolumeMount{Name: "policysync", MountPath: "/var/run/nodeagent"})
	if o.EBPF {
		mounts = append(mounts, corev1.VolumeMount{Name: "bpffs", MountPath: "/sys/fs/bpf"})
	}
	mounts = append(mounts, corev1.VolumeMount{Name: "cni-log-dir", MountPath: "/var/log/calico/cni", ReadOnly: true})
	if o.Calico.Node.Has(calicoversion.FelixSecurityfsMount) {
		// Felix reads the kernel's lockdown mode (/sys/kernel/security/lockdown) to choose BPF programs
		// that work under lockdown=confidentiality (docs/calico-lines.md).
		mounts = append(mounts, corev1.VolumeMount{Name: "sys-kernel-security", MountPath: "/sys/kernel/security", ReadOnly: true})
	}
	if t := o.TyphaTLS; t != nil {
		mounts = append(mounts, typhaTLSMounts(t, t.NodeSecret, t.NodeMountPath)...)
	}
	return mounts
}

func nodeVolumes(o *values.Options) []corev1.Volume {
	dirOrCreate := ptr.To(corev1.HostPathDirectoryOrCreate)
	vs := make([]corev1.Volume, 0, 13) // every volume below, without reallocating
	vs = append(vs, hostPathVolume("lib-modules", "/lib/modules", nil))
	if o.NonPrivileged {
		vs = append(vs,
			hostPathVolume("var-run", "/var/run", nil),
			hostPathVolume("var-lib", "/var/lib", nil),
			hostPathVolume("var-log", "/var/log", nil),
		)
	} else {
		vs = append(vs,
			hostPathVolume("var-run-calico", "/var/run/calico", dirOrCreate),
			hostPathVolume("var-lib-calico", "/var/lib/calico", dirOrCreate),
		)
	}
	vs = append(vs, hostPathVolume("xtables-lock", "/run/xtables.lock", ptr.To(corev1.HostPathFileOrCreate)))
	if o.EBPF {
		sysFS := ptr.To(corev1.HostPathDirectory)
		if o.ReferenceTemplates {
			sysFS = dirOrCreate // the reference's
		}
		vs = append(vs,
			hostPathVolume("sys-fs", "/sys/fs/", sysFS),
			hostPathVolume("bpffs", "/sys/fs/bpf", ptr.To(corev1.HostPathDirectory)),
			hostPathVolume("nodeproc", "/proc", nil),
		)
	}
	vs = append(vs,
		hostPathVolume("cni-bin-dir", "/opt/cni/bin", dirOrCreate),
		hostPathVolume("cni-net-dir", "/etc/cni/net.d", nil),
		hostPathVolume("cni-log-dir", "/var/log/calico/cni", nil),
		hostPathVolume("policysync", "/var/run/nodeagent", dirOrCreate),
	)
	if o.Calico.Node.Has(calicoversion.FelixSecurityfsMount) {
		// No type, as Calico's manifest: a node without securityfs still starts (Felix then reads
		// "not locked down").
		vs = append(vs, hostPathVolume("sys-kernel-security", "/sys/kernel/security", nil))
	}
	if t := o.TyphaTLS; t != nil {
		vs = append(vs, typhaTLSVolumes(t, t.NodeSecret)...)
	}
	return vs
}

// TakenOverContainers are the calico-node helper containers whose commands Reference mode takes over
// from the reference's deployed DaemonSet (internal/referencekeep): shell scripts doing the same work in the
// reference's words, whose exact text calico-pilot cannot derive.
var TakenOverContainers = map[string]bool{
	ContainerCleanupRoutes: true, ContainerLogMTUIssues: true, ContainerHostPathInit: true, ContainerAddSNAT: true,
}

// takenOverCommand is the command of a helper container: in Reference mode the one taken over from
// the reference's DaemonSet when there is one, else command.
func takenOverCommand(o *values.Options, container string, command ...string) []string {
	if o.ReferenceTemplates && o.TakenOver != nil {
		if c, ok := o.TakenOver.Commands[container]; ok && len(c) > 0 {
			return append([]string(nil), c...)
		}
	}
	return command
}

// configChecksum is the pod annotation that rolls calico-node when calico-config changes. In
// Reference mode it is the reference's value, taken over, while calico-config holds what that value
// stood for (ConfigFingerprint); otherwise (and after any change of calico-config) calico-pilot's.
func configChecksum(o *values.Options, data map[string]string) string {
	if t := o.TakenOver; o.ReferenceTemplates && t != nil && t.ConfigChecksum != "" && t.ConfigFingerprint == ConfigFingerprint(data) {
		return t.ConfigChecksum
	}
	return checksum(data)
}

// ConfigFingerprint identifies calico-config's data regardless of whitespace (the reference writes the
// CNI conflist template with other indentation): the checksum of the data with every space, tab and
// line break removed. No value of calico-config has meaningful whitespace.
func ConfigFingerprint(data map[string]string) string {
	squeezed := make(map[string]string, len(data))
	for k, v := range data {
		squeezed[k] = strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return r
		}, v)
	}
	return checksum(squeezed)
}
