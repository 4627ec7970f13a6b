#!/usr/bin/perl
# SOAP::Lite echo client for the toolkit-soaplite scenario.
# usage: client.pl URL CALLS SIZE [keepalive]
# Prints {"call":i,"latency_ms":x} per call, timed with CLOCK_MONOTONIC around the call.
use strict;
use warnings;
use SOAP::Lite;
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my ($url, $calls, $size, $mode) = @ARGV;
die "usage: client.pl URL CALLS SIZE [keepalive]\n" unless $url && $calls && defined $size;
die "bad CALLS\n" unless $calls =~ /^\d+$/ && $calls >= 1 && $calls <= 1000;
my @opts = (timeout => 30);
push @opts, (keep_alive => 1) if ($mode // '') eq 'keepalive';
my $soap = SOAP::Lite->uri('urn:Echo')->proxy($url, @opts);
$| = 1;
my $in = 'x' x $size;
for my $i (1 .. $calls) {
  my $t0 = clock_gettime(CLOCK_MONOTONIC);
  my $res = $soap->echoString($in);
  my $t1 = clock_gettime(CLOCK_MONOTONIC);
  die "call $i failed: " . ($res->fault ? $res->faultstring : 'transport') . "\n" if !$res || $res->fault;
  die "call $i: wrong echo\n" unless ($res->result // '') eq $in;
  printf "{\"call\":%d,\"latency_ms\":%.3f}\n", $i, ($t1 - $t0) * 1000;
}
