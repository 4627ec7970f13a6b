#pragma once
// A callable passed down a call and not kept: a pointer to it and to a
// function calling it, where std::function copied each lambda of more than
// two references to the heap (two allocations per message in finish_soap).
// Like C++26's std::function_ref: the callable must outlive the FunctionRef,
// so take one only as a parameter.
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace stallscope {

template <class Sig> class FunctionRef;

template <class R, class... Args> class FunctionRef<R(Args...)> {
public:
    FunctionRef() = default;  // empty: false, not to be called

    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
    FunctionRef(F&& f)  // NOLINT: implicit, as std::function is
        : obj_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
          call_([](void* obj, Args... args) -> R {
              auto& f = *static_cast<std::remove_reference_t<F>*>(obj);
              if constexpr (std::is_void_v<R>) std::invoke(f, std::forward<Args>(args)...);
              else return std::invoke(f, std::forward<Args>(args)...);
          }) {}

    explicit operator bool() const { return call_ != nullptr; }
    R operator()(Args... args) const { return call_(obj_, std::forward<Args>(args)...); }

private:
    void* obj_ = nullptr;
    R (*call_)(void*, Args...) = nullptr;
};

} // namespace stallscope
