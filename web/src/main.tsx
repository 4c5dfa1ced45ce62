// Entry point: mounts the application into the page.
import { render } from "preact";

import { App } from "./components/App";
import "./app.css";

render(<App />, document.getElementById("app")!);
