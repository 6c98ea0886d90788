package values

// ProviderAzure is the Shoot's spec.provider.type on Azure.
const ProviderAzure = "azure"

// AzureBPFDataIfacePattern keeps Felix's eBPF programs off Azure's accelerated-networking
// interfaces. Accelerated networking gives a VM a Mellanox virtual function named enP<n>s<m>
// bonded to its synthetic eth0; Felix's default data-interface pattern matches "en" followed by
// "P", attaches its programs to the VF as well, and the node loses its network (networking-calico's
// end-user guide, "Known limitations of the eBPF dataplane"). The pattern is the one that guide documents as the manual
// FelixConfiguration edit: the default with "P" dropped from the "en"/"wl"/... suffix class,
// plus vxlan-v6.calico$ so that an IPv6 VXLAN device keeps its programs.
const AzureBPFDataIfacePattern = `^((en|wl|ww|sl|ib)[opsx].*|(eth|wlan|wwan).*|tunl0$|vxlan.calico$|vxlan-v6.calico$|wireguard.cali$|wg-v6.cali$)`
