package provider

// Temporary until the merge of i24-refresh: the constructors its files call.
func named(name string) configured { return configuredAs(typeName("neon" + name)) }

func namedDataSource(name string) configuredDataSource {
	return dataSourceAs(typeName("neon" + name))
}
