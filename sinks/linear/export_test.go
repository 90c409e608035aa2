package linear

// Documents lists every GraphQL document the sink can send, for the schema
// test.
var Documents = documents
