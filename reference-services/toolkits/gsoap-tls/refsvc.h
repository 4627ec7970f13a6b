// gSOAP service header for the gSOAP-over-TLS client (input to soapcpp2): the
// reference server's getString, so a real gSOAP client (libgsoapssl++) can call
// stallscope-refserver --tls, which writes the key log.
//gsoap ns service name: refsvc
//gsoap ns service namespace: urn:stallscope-refsvc
//gsoap ns service style: rpc
//gsoap ns service encoding: literal
int ns__getString(int size, std::string& return_);
