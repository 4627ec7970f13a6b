// gSOAP service header for the toolkit-gsoap scenario (input to soapcpp2).
//gsoap ns service name: echo
//gsoap ns service namespace: urn:stallscope-echo
//gsoap ns service location: http://127.0.0.1:8080/soap
//gsoap ns service style: rpc
//gsoap ns service encoding: encoded
int ns__echoString(std::string in, std::string &out);
