#if canImport(MachO)
import MachO
#elseif os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD) || os(Windows)
import SwiftShims

@_silgen_name("swift_enumerateAllMetadataSections")
private func enumerateMetadataSections(
    _ body: @convention(c) (UnsafePointer<MetadataSections>, UnsafeMutableRawPointer) -> Bool,
    _ context: UnsafeMutableRawPointer
)
#endif

/// Every `InjectedKey` in the process, by the type of its `Value`, so
/// `@Injected var x: T` finds the key whose default provides `T` before
/// anything has read that key. Swift has no API that lists a protocol's
/// conformances, so this reads the conformance records the compiler emits
/// into each image (the section the runtime itself searches for `as?`),
/// once, on the first read by type that finds no registration.
///
/// Only non-generic keys can be listed: a generic key has no single type
/// until it is used. Each candidate is confirmed with `as? any
/// InjectedKey.Type`, so a type conforming to another protocol of that name
/// is not listed. Not seen: images loaded after the first scan (`dlopen`),
/// Apple's own libraries in the shared cache (they declare no keys, and
/// their pointers may be signed), and every image on arm64e, where the
/// records' indirect pointers may be signed too: there a key is found by
/// type once it has been read, as before the catalog. Listing a key makes
/// the runtime build its `Value`'s metadata: a key whose `Value` is a type
/// from a framework missing on the running OS version must not be declared
/// (`@available` does not keep it out of this list).
enum InjectedKeyCatalog {
    private static let keysByValueType: [ObjectIdentifier: [any InjectedKey.Type]] = {
        var byValueType: [ObjectIdentifier: [any InjectedKey.Type]] = [:]
        for key in ConformanceRecords.types(conformingToProtocolNamed: "InjectedKey") {
            guard let key = key as? any InjectedKey.Type else { continue }
            byValueType[valueTypeID(of: key), default: []].append(key)
        }
        return byValueType
    }()

    /// The keys whose `Value` is exactly `type`.
    static func keys(providing type: Any.Type) -> [any InjectedKey.Type] {
        keysByValueType[ObjectIdentifier(type)] ?? []
    }

    private static func valueTypeID<K: InjectedKey>(of key: K.Type) -> ObjectIdentifier {
        ObjectIdentifier(K.Value.self)
    }
}

/// The nominal, non-generic types that conform to a protocol of the given
/// name, read from the images' protocol conformance records. The layouts
/// read here are Swift's stable ABI (docs/ABI/TypeMetadata.rst): a record
/// is a 32-bit relative pointer to a conformance descriptor, whose first
/// field points (directly, or through a GOT slot when the low bit is set) to
/// the protocol descriptor and whose second names the conforming type.
enum ConformanceRecords {
    static func types(conformingToProtocolNamed protocolName: String) -> [Any.Type] {
        var found: [Any.Type] = []
        for section in conformanceSections() {
            guard let base = section.baseAddress else { continue }
            var offset = 0
            while offset + 4 <= section.count {
                defer { offset += 4 }
                guard let descriptor = relative(base + offset),
                    let proto = indirectable(descriptor),
                    name(ofContext: proto) == protocolName,
                    let type = conformingType(descriptor)
                else { continue }
                found.append(type)
            }
        }
        return found
    }

    private static func conformingType(_ descriptor: UnsafeRawPointer) -> Any.Type? {
        let flags = (descriptor + 12).loadUnaligned(as: UInt32.self)
        let typeDescriptor: UnsafeRawPointer?
        switch (flags >> 3) & 0x7 {
        case 0: typeDescriptor = relative(descriptor + 4)
        case 1: typeDescriptor = relative(descriptor + 4)?.load(as: UnsafeRawPointer?.self)
        default: typeDescriptor = nil  // Objective-C class names
        }
        guard let typeDescriptor else { return nil }
        let contextFlags = typeDescriptor.loadUnaligned(as: UInt32.self)
        let kind = contextFlags & 0x1F
        let isGeneric = contextFlags & 0x80 != 0
        // 16...18: class, struct, enum.
        guard (16...18).contains(kind), !isGeneric, let accessor = relative(typeDescriptor + 12) else {
            return nil
        }
        // A non-generic type's metadata accessor takes the request (0: complete,
        // blocking) and returns the metadata in the first result register.
        let access = unsafeBitCast(accessor, to: (@convention(thin) (Int) -> UnsafeRawPointer?).self)
        guard let metadata = access(0) else { return nil }
        return unsafeBitCast(metadata, to: Any.Type.self)
    }

    private static func name(ofContext context: UnsafeRawPointer) -> String? {
        relative(context + 8).map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
    }

    private static func relative(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = field.loadUnaligned(as: Int32.self)
        return offset == 0 ? nil : field + Int(offset)
    }

    private static func indirectable(_ field: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = field.loadUnaligned(as: Int32.self)
        guard offset & 1 != 0 else { return relative(field) }
        return (field + Int(offset & ~1)).load(as: UnsafeRawPointer?.self)
    }

    private static func conformanceSections() -> [UnsafeRawBufferPointer] {
        #if canImport(MachO)
        #if _pointerBitWidth(_64)
        typealias MachHeader = mach_header_64
        #else
        typealias MachHeader = mach_header
        #endif
        #if arch(arm64e)
        return []
        #else
        // MH_DYLIB_IN_CACHE: an image of the shared cache.
        let inSharedCache: UInt32 = 0x8000_0000
        var sections: [UnsafeRawBufferPointer] = []
        for image in 0..<_dyld_image_count() {
            guard let header = _dyld_get_image_header(image), header.pointee.flags & inSharedCache == 0 else {
                continue
            }
            var size: UInt = 0
            let start = header.withMemoryRebound(to: MachHeader.self, capacity: 1) {
                getsectiondata($0, "__TEXT", "__swift5_proto", &size)
            }
            if let start, size > 0 {
                sections.append(UnsafeRawBufferPointer(start: start, count: Int(size)))
            }
        }
        return sections
        #endif
        #elseif os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD) || os(Windows)
        var sections: [UnsafeRawBufferPointer] = []
        withUnsafeMutablePointer(to: &sections) { sections in
            enumerateMetadataSections(
                { image, context in
                    let range = image.pointee.swift5_protocol_conformances
                    if let start = UnsafeRawPointer(bitPattern: range.start), range.length > 0 {
                        context.assumingMemoryBound(to: [UnsafeRawBufferPointer].self).pointee.append(
                            UnsafeRawBufferPointer(start: start, count: Int(range.length)))
                    }
                    return true
                }, sections)
        }
        return sections
        #else
        return []
        #endif
    }
}
