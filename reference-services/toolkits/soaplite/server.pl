#!/usr/bin/perl
# SOAP::Lite echo server (SOAP::Transport::HTTP::Daemon) for the toolkit-soaplite scenario.
# usage: server.pl PORT [nodelay]   -- serves until SIGTERM/SIGINT
# "nodelay" sets TCP_NODELAY on each accepted socket (the fix for its split response writes).
use strict;
use warnings;
use SOAP::Transport::HTTP;
use Socket qw(IPPROTO_TCP TCP_NODELAY);

package Echo;
sub echoString { my ($class, $s) = @_; return $s; }

package main;
my $port = shift @ARGV or die "usage: server.pl PORT [nodelay]\n";
my $nodelay = (shift(@ARGV) // '') eq 'nodelay';
$SIG{TERM} = $SIG{INT} = sub { exit 0 };

my $daemon = SOAP::Transport::HTTP::Daemon->new(LocalAddr => '127.0.0.1', LocalPort => $port, ReuseAddr => 1)
  ->dispatch_to('Echo');
print STDERR "soaplite server: ", $daemon->url, " nodelay=", ($nodelay ? 1 : 0), "\n";
# The loop of SOAP::Transport::HTTP::Daemon::handle, with an optional TCP_NODELAY per connection.
my $d = $daemon->{_daemon};
while (my $c = $d->accept) {
  setsockopt($c, IPPROTO_TCP, TCP_NODELAY, 1) if $nodelay;
  while (my $r = $c->get_request) {
    $daemon->request($r);
    $daemon->SOAP::Transport::HTTP::Server::handle;
    $c->send_response($daemon->response);
  }
  $c->close;
  undef $c;
}
