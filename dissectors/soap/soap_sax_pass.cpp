#include "dissectors/soap/soap_sax_pass.h"

#include "dissectors/soap/envelope_walker.h"

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <algorithm>
#include <cstring>

namespace stallscope::soap_detail {

namespace {

// Deeper than this the pass gives up: the reader's tree stops at libxml2's
// own limit (256 nodes, xmlParserMaxDepth) where the SAX pass has none, so
// deep documents go to the reader, which reports them as before.
constexpr uint32_t kSaxMaxLevels = 200;
// The parser's name dictionary outlives documents (names are looked up, not
// copied, when seen again); past this many names a new parser starts.
constexpr size_t kMaxDictNames = 8192;
// A parser that held a document this large is dropped with it.
constexpr size_t kKeepParserBelow = 256 * 1024;

std::string_view sv(const xmlChar* s) { return s ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view(); }

struct PassState {
    EnvelopeWalker* walker = nullptr;
    xmlParserCtxtPtr ctxt = nullptr;
    uint32_t level_cap = 0;
    int open = 0;            // elements open: the depth of the next one
    bool irregular = false;  // leave this document to the reader
    bool stopped = false;    // the walker has read the head (SoapRead::Head)

    void stop_if_done() {
        if (!walker->done() || stopped) return;
        stopped = true;
        xmlStopParser(ctxt);
    }

    void give_up() {
        if (irregular) return;
        irregular = true;
        xmlStopParser(ctxt);
    }
};

PassState& state(void* user) { return *static_cast<PassState*>(user); }

void on_start(void* user, const xmlChar* localname, const xmlChar*, const xmlChar* uri, int, const xmlChar**,
              int nb_attributes, int nb_defaulted, const xmlChar** attributes) {
    PassState& s = state(user);
    if (s.irregular) return;
    // xml:id is checked and registered by the reader's tree (an invalid one
    // makes it call the document malformed); defaulted attributes need a DTD.
    if (nb_defaulted > 0) return s.give_up();
    for (int i = 0; i < nb_attributes; ++i) {
        const xmlChar* local = attributes[5 * i];
        const xmlChar* prefix = attributes[5 * i + 1];
        if (prefix && std::strcmp(reinterpret_cast<const char*>(prefix), "xml") == 0 &&
            std::strcmp(reinterpret_cast<const char*>(local), "id") == 0)
            return s.give_up();
    }
    const int depth = s.open++;
    if (uint32_t(depth) + 1 > s.level_cap) return s.give_up();
    if (!s.walker->element(depth, sv(localname), sv(uri), false)) return s.give_up();
    s.stop_if_done();
}

void on_end(void* user, const xmlChar*, const xmlChar*, const xmlChar*) {
    PassState& s = state(user);
    if (s.irregular || s.stopped) return;
    s.walker->end_element(--s.open);
    s.stop_if_done();
}

void on_text(void* user, const xmlChar* ch, int len) {
    PassState& s = state(user);
    if (s.irregular || s.stopped || len <= 0) return;
    s.walker->text(s.open, std::string_view(reinterpret_cast<const char*>(ch), size_t(len)));
}

// A DTD, an entity reference or any message from the parser (error or
// warning, fatal or not): the reader decides what the document yields.
void on_subset(void* user, const xmlChar*, const xmlChar*, const xmlChar*) { state(user).give_up(); }
void on_reference(void* user, const xmlChar*) { state(user).give_up(); }
void on_message(void* user, xmlErrorPtr) { state(user).give_up(); }

xmlSAXHandler make_handler() {
    xmlSAXHandler h;
    std::memset(&h, 0, sizeof h);
    h.initialized = XML_SAX2_MAGIC;
    h.startElementNs = on_start;
    h.endElementNs = on_end;
    // As the reader sets them: white space is character data like any other.
    h.characters = on_text;
    h.ignorableWhitespace = on_text;
    h.cdataBlock = on_text;
    h.internalSubset = on_subset;
    h.externalSubset = on_subset;
    h.reference = on_reference;
    h.serror = on_message;
    return h;
}

// One push parser per thread, reset for each document. After a document it
// did not read to a clean end it is dropped: libxml2 2.9's reset keeps the
// namespace bindings of elements left open, which the next document must
// not see.
class ThreadParser {
public:
    ~ThreadParser() { drop(); }
    xmlParserCtxtPtr get() {
        if (ctxt_ && xmlDictSize(ctxt_->dict) > int(kMaxDictNames)) drop();
        if (!ctxt_) {
            static const xmlSAXHandler handler = make_handler();
            xmlSAXHandler copy = handler;  // the context keeps its own copy
            ctxt_ = xmlCreatePushParserCtxt(&copy, nullptr, nullptr, 0, nullptr);
        }
        return ctxt_;
    }
    void drop() {
        if (ctxt_) xmlFreeParserCtxt(ctxt_);
        ctxt_ = nullptr;
    }

private:
    xmlParserCtxtPtr ctxt_ = nullptr;
};

ThreadParser& thread_parser() {
    thread_local ThreadParser p;
    return p;
}

} // namespace

bool sax_decode(std::string_view doc, bool bom, const SoapLimits& limits, SoapInfo& info, SoapRead read) {
    // Past 8 MiB the reader's tree could hit libxml2's 10 MB text-node limit.
    if (doc.empty() || doc.size() > 8 * 1024 * 1024) return false;
    ThreadParser& tp = thread_parser();
    xmlParserCtxtPtr ctxt = tp.get();
    if (!ctxt) return false;
    // As the reader is set up for the document: a reset one (ASCII first: no
    // encoding detection) or one made for it (a byte-order mark: detected
    // from the first bytes handed over with the reset); the same options.
    const char* first = bom ? doc.data() : nullptr;
    const int first_size = bom ? int(doc.size()) : 0;
    if (xmlCtxtResetPush(ctxt, first, first_size, nullptr, nullptr) != 0) {
        tp.drop();
        return false;
    }
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_COMPACT);

    EnvelopeWalker walker(info, limits, read);
    PassState s;
    s.walker = &walker;
    s.ctxt = ctxt;
    s.level_cap = std::min(limits.max_depth, kSaxMaxLevels);
    ctxt->userData = &s;
    const int rc = bom ? xmlParseChunk(ctxt, nullptr, 0, 1) : xmlParseChunk(ctxt, doc.data(), int(doc.size()), 1);
    // Stopped after the head: clean when nothing before the stop was wrong.
    const bool clean = s.stopped ? !s.irregular && ctxt->wellFormed == 1 && ctxt->nsWellFormed == 1 &&
                                       ctxt->errNo == XML_ERR_USER_STOP && ctxt->lastError.code == XML_ERR_OK
                                 : !s.irregular && rc == 0 && ctxt->wellFormed == 1 && ctxt->nsWellFormed == 1 &&
                                       ctxt->errNo == XML_ERR_OK && ctxt->lastError.code == XML_ERR_OK && s.open == 0 &&
                                       ctxt->instate == XML_PARSER_EOF && info.element_count > 0;
    ctxt->userData = ctxt;
    if (!clean || doc.size() >= kKeepParserBelow) tp.drop();
    return clean;
}

} // namespace stallscope::soap_detail
