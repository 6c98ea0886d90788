package render

import "github.com/calico-pilot/calico-pilot/internal/calicoversion"

// Namespace is where every namespaced shoot object goes in the default layout (the zero
// values.Options.Layout, every Gardener shoot): the namespace of Calico's workloads
// (calicoversion.Namespace), where v3.32's kube-controllers looks for the calico-node DaemonSet.
// The render itself takes the namespace from the options' layout (docs/layouts.md).
const Namespace = calicoversion.Namespace

// Object and container names. They match the reference extension's, so a shoot moves to
// calico-pilot in place (objects are updated, never deleted and re-created). The names of the
// workloads, their ServiceAccounts and RBAC, typha's Service, the CNI plugin's and calico-config are
// the default layout's (internal/layout's KubeSystem, TestLayoutWorkloads holds the two together);
// the render takes them from the options' layout.
const (
	// The workloads' names are the catalogue's (calicoversion): a move and a rollout watch them.
	NameCalicoNode      = calicoversion.NodeDaemonSet
	NameCalicoConfig    = "calico-config"
	NameCNIPlugin       = "calico-cni-plugin"
	NameTierGetter      = "calico-tier-getter"
	NameTypha           = "calico-typha"
	NameTyphaDeployment = calicoversion.TyphaDeployment
	NameTyphaCPA        = "calico-typha-horizontal-autoscaler"
	NameTyphaCPVA       = "calico-typha-vertical-autoscaler"
	NameNodeCPVA        = "calico-node-vertical-autoscaler"
	// AppNodeCPVA is the k8s-app label (the selector) of NameNodeCPVA, the reference's: a Deployment's
	// selector cannot change in place.
	AppNodeCPVA                = "calico-node-autoscaler"
	NameTyphaCPARBAC           = "typha-cpha"
	NameTyphaCPVARBAC          = "typha-cpva"
	NameNodeCPVARBAC           = "calico-node-cpva"
	NameKubeControllers        = calicoversion.KubeControllersDeployment
	NameFelixMonitoring        = "calico-felix-monitoring"
	NameTyphaMonitoring        = "calico-typha-monitoring"
	NameBirdMonitoring         = "calico-bird-monitoring"
	NameAllowFromCalicoNode    = "gardener.cloud--allow-from-calico-node"
	NameMultus                 = "multus"
	NameIPv4Pool               = "default-ipv4-ippool"
	NameIPv6Pool               = "default-ipv6-ippool"
	NameNoSNATPool             = "no-snat-for-node-cidr"
	NameKubeAPIServerNetSet    = "gardener-kube-apiserver"
	NameDashboards             = "calico-dashboards"
	NameScrapeFelix            = "shoot-calico-felix"
	NameScrapeTypha            = "shoot-calico-typha"
	NameScrapeBird             = "shoot-calico-bird"
	NameKubeServicesEndpoint   = "kubernetes-services-endpoint"
	NameMultusCRD              = "network-attachment-definitions.k8s.cni.cncf.io"
	ContainerInstallCNI        = "install-cni"
	ContainerCleanupRoutes     = "cleanup-routes"
	ContainerLogMTUIssues      = "log-mtu-issues"
	ContainerEBPFBootstrap     = "ebpf-bootstrap"
	ContainerHostPathInit      = "hostpath-init"
	ContainerAddSNAT           = "add-snat-rule-to-upstream-dns"
	ContainerEnsurer           = "network-unavailable-condition-ensurer"
	ContainerBirdExporter      = "bird-exporter"
	AnnotationChecksumConfig   = "checksum/configmap-calico"
	LabelCriticalComponent     = "node.gardener.cloud/critical-component"
	LabelKubeAPIServerEndpoint = "networking.gardener.cloud/endpoint"
)
