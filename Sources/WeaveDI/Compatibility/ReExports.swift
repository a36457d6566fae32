// `import WeaveDI` gives the core's API as well as upstream's names.
@_exported import WeaveDICore
