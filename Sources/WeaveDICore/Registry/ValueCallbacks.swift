import CWeaveRegistry

/// Installs, once, how C retains and releases the entries it stores.
let valueCallbacksInstalled: Void = {
    weave_set_value_callbacks(
        { _ = Unmanaged<AnyObject>.fromOpaque($0!).retain() },
        { Unmanaged<AnyObject>.fromOpaque($0!).release() }
    )
}()
