import HTTP
import Testing

/// Which numeric addresses a webhook may call: the IPv4 address inside an IPv6 form decides.
@Suite struct AddressScopeTests {
    @Test(arguments: ["::127.0.0.1", "::ffff:0:127.0.0.1", "::ffff:10.0.0.1", "2002:7f00:1::1", "2002:a9fe:a9fe::",
                      "2001:0:4136:e378:8000:63bf:f5ff:fffe", "2001:0:7f00:1:8000:63bf:b7f7:f8f8", "64:ff9b::10.0.0.1",
                      "64:ff9b:1::8.8.8.8", "2001:db8::1", "100::1", "::", "::1", "fe80::1", "fd12::1"])
    func ipv6FormsOfInternalAddressesAreInternal(_ address: String) {
        #expect(AddressScope(address) == .internal)
    }

    @Test(arguments: ["::8.8.8.8", "::ffff:8.8.8.8", "2002:808:808::1", "2001:0:4136:e378:8000:63bf:b7f7:f8f8", "64:ff9b::8.8.8.8",
                      "2606:4700:4700::1111", "203.0.113.7"])
    func publicAddressesInThoseFormsStayPublic(_ address: String) {
        #expect(AddressScope(address) == .public)
    }
}
