#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

enum FileHandleStderr {
    static func write(_ text: String) {
        fputs(text, stderr)
    }
}
