package network

// The controller's seed permissions. `make generate` turns these markers into the ClusterRole of the
// Helm chart (deploy/calico-pilot/files/rbac/role.yaml); each rule says why it is needed.

// Networks are watched (cache), get a finalizer and lose the operation annotation (patch).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=networks,verbs=get;list;watch;patch
// lastOperation, lastError, observedGeneration, providerStatus, ipFamilies and conditions are status patches.
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=networks/status,verbs=patch
// The Cluster holds the shoot (read per reconcile; watched for --ignore-operation-annotation).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=clusters,verbs=get;list;watch
// The kube-apiserver DNSRecords give the GlobalNetworkSet's addresses (listed uncached, never watched).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=dnsrecords,verbs=list
// The one ManagedResource per shoot is cached (an informer restricted to its name: it tells what was
// stored last), created, repointed, marked keepObjects and deleted.
// +kubebuilder:rbac:groups=resources.gardener.cloud,resources=managedresources,verbs=get;list;watch;create;update;patch;delete
// Content-hashed manifest secrets are created and deleted (list finds, on deletion, those an
// interrupted write left behind); get checks one that already existed; the shoot access secret (gardener-internal/gardener) is read for the overlay switch.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;create;delete
// The Grafana dashboards ConfigMap in the control-plane namespace (and the reference's legacy one, deleted).
// Both are written with server-side apply (a patch; creating a missing one needs create too).
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;patch;delete
// The seed Prometheus ScrapeConfigs for felix, typha and bird (server-side apply, delete).
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=scrapeconfigs,verbs=create;patch;delete
// Events on the Network tell the shoot owner what happened.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// Leader election records its events through the core events API.
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// Leader election's Lease is not granted here: it lives in the release namespace, known only at install
// time, so the Helm chart grants it with a namespaced Role (templates/rbac.yaml).
