#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Objects the process keeps until it exits anyway, marked immortal in the
/// Swift runtime's reference counts: a retain or release of one then reads
/// its header and writes nothing.
///
/// Why: `@Injected(\.key)` is given its key path object by the caller, and
/// every evaluation of the `\.key` literal retains that one shared object
/// (`swift_getKeyPath`) and releases it after the wrapper is made. For a
/// handler with three such properties that is six atomic writes to one
/// cache line per object, which at two threads cost more than everything
/// else the handler does. The slot index
/// keeps every key path object it names a slot by for good, so making it
/// immortal changes no lifetime.
///
/// The runtime's entry point is `_swift_stdlib_immortalize`, exported by
/// libswiftCore for the standard library's own use (its benchmarks call it)
/// and not part of the ABI contract, so it is looked up at run time: a
/// runtime without it only misses the speed-up. It is `swiftcc
/// void(void *)`, which passes its one pointer in the first C argument
/// register on every architecture Swift supports, so a C function pointer
/// calls it correctly.
enum ImmortalObjects {
    private typealias Immortalize = @convention(c) (UnsafeMutableRawPointer) -> Void

    private static let immortalize: Immortalize? = {
        guard let process = dlopen(nil, RTLD_NOW),
            let symbol = dlsym(process, "_swift_stdlib_immortalize")
        else { return nil }
        return unsafeBitCast(symbol, to: Immortalize.self)
    }()

    /// Whether this runtime can make objects immortal.
    static var available: Bool { immortalize != nil }

    /// Marks `object`, which the caller keeps alive forever, immortal.
    static func keepForever(_ object: AnyObject) {
        guard let immortalize else { return }
        withExtendedLifetime(object) {
            immortalize(Unmanaged.passUnretained(object).toOpaque())
        }
    }
}
