// Generic agents of qpm_top's valid/ready streams, used for the datapath request and
// response, doorbell and EQE ports (the command port keeps its own CommandDriver and
// ResponseMonitor, whose random draws old replay lines depend on).
//
// A stream is named by its pins on the Dut (StreamPins); payloads cross as bit vectors,
// which port_codec.h packs and unpacks. All three agents follow the AXI rule
// (STYLE.md §2.21): a driver holds valid and payload until ready; a monitor reports a
// transfer at the edge where valid and ready are both high, from the pins.
#pragma once

#include <deque>
#include <functional>
#include <random>

#include "testbench.h"

namespace qpm {

// An input stream of qpm_top (the harness drives valid and payload, the RTL ready).
struct InStreamPins {
  void (Dut::*set_valid)(bool);
  void (Dut::*set_payload)(const BitVec &);
  bool (Dut::*valid)() const;
  BitVec (Dut::*payload)() const;
  bool (Dut::*ready)() const;
};
// An output stream (the RTL drives valid and payload, the harness ready).
struct OutStreamPins {
  bool (Dut::*valid)() const;
  BitVec (Dut::*payload)() const;
  void (Dut::*set_ready)(bool);
  bool (Dut::*ready)() const;
};

const InStreamPins &dp_request_pins();
const OutStreamPins &dp_response_pins();
const InStreamPins &doorbell_pins();
const OutStreamPins &eqe_pins();
const OutStreamPins &cqe_pins();

// Drives queued payloads, one at a time, each held until ready; before each one, with
// probability idle_prob, waits a cycle (and draws again).
class StreamDriver : public TbExtension {
 public:
  StreamDriver(std::mt19937_64 &rng, const InStreamPins &pins, double idle_prob = 0.0)
      : rng_(rng), pins_(pins), idle_prob_(idle_prob) {}

  void push(const BitVec &payload) { queue_.push_back(payload); }
  bool idle() const { return queue_.empty() && !driving_; }
  size_t queued() const { return queue_.size(); }
  void before_edge(Dut &dut) override;
  void after_edge(Dut &dut) override;

 private:
  std::mt19937_64 &rng_;
  InStreamPins pins_;
  double idle_prob_;
  std::deque<BitVec> queue_;
  bool driving_ = false;
};

// Reports each transfer of an input stream, read from the pins at its edge.
class StreamMonitor : public TbExtension {
 public:
  using AcceptFn = std::function<void(const BitVec &)>;
  StreamMonitor(const InStreamPins &pins, AcceptFn on_accept)
      : pins_(pins), on_accept_(std::move(on_accept)) {}
  void before_edge(Dut &dut) override;
  void after_edge(Dut &) override {}

 private:
  InStreamPins pins_;
  AcceptFn on_accept_;
};

// Takes an output stream: ready low in a cycle with probability stall_prob, or for as
// long as hold(true) says (a test's long stall); reports each transfer.
class StreamSink : public TbExtension {
 public:
  using ItemFn = std::function<void(const BitVec &)>;
  StreamSink(std::mt19937_64 &rng, const OutStreamPins &pins, ItemFn on_item,
             double stall_prob = 0.0)
      : rng_(rng), pins_(pins), on_item_(std::move(on_item)), stall_prob_(stall_prob) {}

  void hold(bool on) { hold_ = on; }
  // After each item taken, ready stays low for this many cycles (0: never): a consumer
  // that drains in bursts far apart, so the producer's queue fills and stays full.
  void hold_after_each(uint32_t cycles) { hold_after_ = cycles; }
  void before_edge(Dut &dut) override;
  void after_edge(Dut &dut) override;

 private:
  std::mt19937_64 &rng_;
  OutStreamPins pins_;
  ItemFn on_item_;
  double stall_prob_;
  bool hold_ = false;
  bool ready_ = false;
  uint32_t hold_after_ = 0, hold_left_ = 0;
};

}  // namespace qpm
