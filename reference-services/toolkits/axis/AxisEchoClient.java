// Apache Axis 1.4 client (org.apache.axis.client.Call) for the toolkit-axis scenario.
// usage: java AxisEchoClient URL CALLS SIZE [commons]
//   default:  new Service(): Axis's own client-config.wsdd, i.e. HTTPSender, HTTP/1.0
//   commons:  CommonsHTTPSender (commons-httpclient 3.1 pool) with HTTP/1.1 -> keep-alive
// Prints {"call":i,"latency_ms":x} per call, timed with System.nanoTime around Call.invoke.
import javax.xml.namespace.QName;
import javax.xml.rpc.ParameterMode;
import org.apache.axis.MessageContext;
import org.apache.axis.SimpleTargetedChain;
import org.apache.axis.client.Call;
import org.apache.axis.client.Service;
import org.apache.axis.configuration.SimpleProvider;
import org.apache.axis.encoding.XMLType;
import org.apache.axis.transport.http.CommonsHTTPSender;
import org.apache.axis.transport.http.HTTPConstants;

public class AxisEchoClient {
  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: AxisEchoClient URL CALLS SIZE [commons]");
      System.exit(2);
    }
    String url = args[0];
    int calls = Integer.parseInt(args[1]);
    int size = Integer.parseInt(args[2]);
    boolean commons = args.length > 3 && args[3].equals("commons");
    if (calls < 1 || calls > 1000 || size < 0) { System.err.println("bad CALLS or SIZE"); System.exit(2); }

    Service service;
    if (commons) {
      SimpleProvider config = new SimpleProvider();
      config.deployTransport("http", new SimpleTargetedChain(new CommonsHTTPSender()));
      service = new Service(config);
    } else {
      service = new Service();
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < size; ++i) sb.append('x');
    String text = sb.toString();
    for (int i = 1; i <= calls; ++i) {
      Call call = (Call) service.createCall();
      call.setTargetEndpointAddress(new java.net.URL(url));
      call.setOperationName(new QName("urn:stallscope-echo", "echoString"));
      call.addParameter("in", XMLType.XSD_STRING, ParameterMode.IN);
      call.setReturnType(XMLType.XSD_STRING);
      call.setTimeout(30000);
      if (commons) call.setProperty(MessageContext.HTTP_TRANSPORT_VERSION, HTTPConstants.HEADER_PROTOCOL_V11);
      long t0 = System.nanoTime();
      String out = (String) call.invoke(new Object[] {text});
      long t1 = System.nanoTime();
      if (!text.equals(out)) { System.err.println("call " + i + ": wrong echo"); System.exit(1); }
      System.out.printf("{\"call\":%d,\"latency_ms\":%.3f}%n", i, (t1 - t0) / 1e6);
      System.out.flush();
    }
  }
}
