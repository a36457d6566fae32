/// The value a `@LazyInjected` property read first.
@usableFromInline
package final class FirstRead<Value>: @unchecked Sendable {
    @usableFromInline let value: Value

    @usableFromInline init(_ value: Value) {
        self.value = value
    }
}
