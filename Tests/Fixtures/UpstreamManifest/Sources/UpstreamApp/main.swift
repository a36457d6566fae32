import WeaveDI

print(UnifiedDI.resolve(String.self) ?? "nothing registered")
