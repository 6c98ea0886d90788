package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Shoots are many small control planes for suites that need a fleet of shoots: N kube-apiservers
// over ONE etcd, each API server keeping its objects under its own --etcd-prefix, so that every
// shoot has its own kube-system/calico-node. One etcd instead of N saves its memory and start time
// per shoot; the API servers are started concurrently.
type Shoots struct {
	// Configs reach each shoot's API server as a cluster admin, in order.
	Configs []*rest.Config
	etcd    *envtest.Etcd
	servers []*envtest.APIServer
}

// startConcurrency is how many shoot API servers start at once.
const startConcurrency = 3

// StartShoots starts n API servers over one etcd and installs the CRDs of crdPaths (files or
// directories) into each.
func StartShoots(n int, crdPaths []string) (*Shoots, error) {
	dir := AssetsDir()
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("%w (looked for %s)", ErrNoBinaries, filepath.Join(dir, name))
		}
	}
	s := &Shoots{etcd: &envtest.Etcd{Path: filepath.Join(dir, "etcd")}}
	if err := s.etcd.Start(); err != nil {
		return nil, fmt.Errorf("starting the shoots' etcd: %w", err)
	}
	s.Configs = make([]*rest.Config, n)
	s.servers = make([]*envtest.APIServer, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	// A few at a time: an API server's start is CPU-bound (it builds its OpenAPI models), and all at
	// once on a small machine makes every one of them miss its start timeout.
	slots := make(chan struct{}, startConcurrency)
	for i := range n {
		api := &envtest.APIServer{Path: filepath.Join(dir, "kube-apiserver"), EtcdURL: s.etcd.URL, StartTimeout: time.Minute}
		args := api.Configure()
		args.Set("etcd-prefix", fmt.Sprintf("/shoot-%02d", i))
		// Only the APIs a shoot suite touches (core, apps, CRDs, and authorization for envtest's
		// user set-up): a third of the memory and start time of a full API server.
		args.Set("runtime-config", "api/all=false,api/v1=true,apps/v1=true,apiextensions.k8s.io/v1=true,authorization.k8s.io/v1=true,rbac.authorization.k8s.io/v1=true,apiregistration.k8s.io/v1=true,coordination.k8s.io/v1=true,discovery.k8s.io/v1=true,networking.k8s.io/v1=true,admissionregistration.k8s.io/v1=true")
		args.Set("enable-priority-and-fairness", "false")
		// The admission plugins that watch APIs switched off above (policies, webhooks, storage
		// and priority classes, ingress classes, service CIDRs) would log failing watches forever.
		args.Set("enable-admission-plugins", "NamespaceLifecycle,ServiceAccount")
		args.Set("disable-admission-plugins", "MutatingAdmissionPolicy,ValidatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,Priority,DefaultIngressClass,RuntimeClass,CertificateApproval,CertificateSigning,CertificateSubjectRestriction,ClusterTrustBundleAttest,DefaultTolerationSeconds,LimitRanger,ResourceQuota,TaintNodesByCondition,PodSecurity")
		s.servers[i] = api
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			if err := api.Start(); err != nil {
				errs[i] = fmt.Errorf("starting shoot API server %d: %w", i, err)
				return
			}
			cfg, err := api.SecureServing.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 200, Burst: 400})
			if err != nil {
				errs[i] = fmt.Errorf("shoot API server %d: adding the admin: %w", i, err)
				return
			}
			cfg.Host, cfg.CAData = api.SecureServing.URL("https", "/").String(), api.SecureServing.CA
			s.Configs[i] = cfg
			if len(crdPaths) > 0 {
				if _, err := envtest.InstallCRDs(s.Configs[i], envtest.CRDInstallOptions{Paths: crdPaths, ErrorIfPathMissing: true}); err != nil {
					errs[i] = fmt.Errorf("shoot API server %d: installing CRDs: %w", i, err)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// Kubeconfig returns a kubeconfig for shoot i's admin (what a shoot access secret holds).
func (s *Shoots) Kubeconfig(i int) ([]byte, error) {
	cfg := s.Configs[i]
	kc := clientcmdapi.NewConfig()
	kc.Clusters["shoot"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken}
	kc.Contexts["shoot"] = &clientcmdapi.Context{Cluster: "shoot", AuthInfo: "admin"}
	kc.CurrentContext = "shoot"
	return clientcmd.Write(*kc)
}

// Stop stops the API servers and the etcd and removes their data.
func (s *Shoots) Stop() error {
	if s == nil {
		return nil
	}
	errs := make([]error, len(s.servers)+1)
	var wg sync.WaitGroup
	for i, api := range s.servers {
		if api != nil {
			wg.Go(func() { errs[i] = api.Stop() })
		}
	}
	wg.Wait()
	if s.etcd != nil {
		errs[len(s.servers)] = s.etcd.Stop()
	}
	return errors.Join(errs...)
}
