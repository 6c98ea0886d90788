// Package testenv starts the real control plane (kube-apiserver + etcd built from Go modules
// by hack/tools) that the integration suites under test/integration and the demo run against. It
// lives under internal/ (not the test tree) because production code (internal/demo) uses it.
//
// Each suite package starts one control plane in its TestMain and shares it between its tests;
// tests isolate themselves with fresh namespaces (NewNamespace). A suite names the repository's CRD directories it
// installs with CRDDirectories and builds its uncached client with ControlPlane.NewClient, passing
// the AddToScheme functions of the types it uses:
//
//	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs)}
//	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
//		var err error
//		cl, err = cp.NewClient(clientgoscheme.AddToScheme, extensionsv1alpha1.AddToScheme)
//		return err
//	}))
package testenv
