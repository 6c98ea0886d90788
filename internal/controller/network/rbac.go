package network

// The controller's seed permissions. `make generate` turns these markers into the ClusterRole of the
// Helm chart (deploy/calico-pilot/files/rbac/role.yaml); each rule says why it is needed.

// Networks are watched (cache), get a finalizer and lose the operation annotation (patch).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=networks,verbs=get;list;watch;patch
// lastOperation, lastError, observedGeneration, providerStatus, ipFamilies and conditions are status patches.
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=networks/status,verbs=patch
// The Cluster holds the shoot (read per reconcile; watched for --ignore-operation-annotation).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=clusters,verbs=get;list;watch
// The kube-apiserver DNSRecords give the GlobalNetworkSet's addresses (a label-selected informer:
// listed and watched by the cache, read from it on every reconcile that publishes the set).
// +kubebuilder:rbac:groups=extensions.gardener.cloud,resources=dnsrecords,verbs=list;watch
// The two ManagedResources per shoot (the shoot's objects; the seed's monitoring objects, class seed)
// are cached (an informer restricted to the origin label: they tell what was stored last), created,
// repointed, marked keepObjects and deleted.
// +kubebuilder:rbac:groups=resources.gardener.cloud,resources=managedresources,verbs=get;list;watch;create;update;patch;delete
// Content-hashed manifest secrets are created and deleted (list finds, on deletion, those an
// interrupted write left behind); get checks one that already existed; the shoot access secret
// (gardener-internal/gardener) is read for the IP pool sync and the overlay switch.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;create;delete
// The seed's resource manager applies the dashboards ConfigMap and the ScrapeConfigs (the seed
// ManagedResource); the controller only deletes, on deletion and migration, the ones the reference
// extension wrote directly (a swap-in that was never reconciled).
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=delete
// +kubebuilder:rbac:groups=monitoring.coreos.com,resources=scrapeconfigs,verbs=delete
// Events on the Network tell the shoot owner what happened.
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// Leader election records its events through the core events API.
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// Leader election's Lease is not granted here: it lives in the release namespace, known only at install
// time, so the Helm chart grants it with a namespaced Role (templates/rbac.yaml).
