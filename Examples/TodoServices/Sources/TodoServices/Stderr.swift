#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum FileHandleStderr {
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            #if canImport(Darwin)
            _ = Darwin.write(2, bytes.baseAddress, bytes.count)
            #elseif canImport(Musl)
            _ = Musl.write(2, bytes.baseAddress, bytes.count)
            #else
            _ = Glibc.write(2, bytes.baseAddress, bytes.count)
            #endif
        }
    }
}
